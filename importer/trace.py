"""stridelab import's tracer: a PyTorch module's forward and loss as aten
ops with shapes, for the Go side (package importer) to write as a
program.

Reads a JSON request (the path in argv[1]):
  {"model": FILE.py, "class": CLASS, "kwargs": {...}, "seed": N,
   "examples": [{"name": N, "file": F.npy} | {"name": N, "dtype": D, "shape": [...]}],
   "out": DIR, "values": bool}
and prints one JSON object (see emit below). With "values", it writes
DIR/<file>.npy for every parameter, buffer-derived constant and example
the object names. A fault is one line on stderr beginning "import: ",
and exit status 3.

The trace is make_fx with tracing_mode="fake" over functional_call
(PyTorch 1.13's torch.nn.utils.stateless, 2.x's torch.func): parameters
are the graph's inputs, and nothing of the model's size is allocated.
Whatever the forward computes from neither a parameter nor an example
(a causal mask, positions) is folded: computed here, with real tensors,
and handed over as a constant.
"""
import hashlib
import importlib.util
import json
import math
import operator
import os
import sys


class Refused(Exception):
    """A fault the user can fix, said in one line."""


def fail(msg):
    sys.stderr.write("import: " + " ".join(str(msg).split()) + "\n")
    sys.exit(3)


def load_class(path, name):
    if not os.path.isfile(path):
        raise Refused("%s: no such file" % path)
    spec = importlib.util.spec_from_file_location("stridelab_model", path)
    mod = importlib.util.module_from_spec(spec)
    sys.path.insert(0, os.path.dirname(os.path.abspath(path)))
    try:
        spec.loader.exec_module(mod)
    except Exception as e:  # the user's file: say what it raised
        raise Refused("%s does not load: %s: %s" % (path, type(e).__name__, e))
    cls = getattr(mod, name, None)
    if cls is None:
        import torch.nn as nn
        have = sorted(k for k, v in vars(mod).items() if isinstance(v, type) and issubclass(v, nn.Module) and v.__module__ == mod.__name__)
        raise Refused("%s has no class %s (its modules: %s)" % (path, name, ", ".join(have) or "none"))
    return cls


def named_tensors(module, kind):
    """Every parameter (kind "_parameters") or buffer of module by its
    path, a tensor shared by two paths (a tied head) under each."""
    out = {}
    for prefix, m in module.named_modules(remove_duplicate=False):
        for k, t in getattr(m, kind).items():
            if t is not None:
                out[(prefix + "." if prefix else "") + k] = t
    return out


# The ops whose value depends on an input's shape alone: a constant.
SHAPE_ONLY = {"aten.ones_like.default", "aten.zeros_like.default", "aten.full_like.default",
              "aten.new_ones.default", "aten.new_zeros.default", "aten.new_full.default",
              "aten.empty_like.default", "aten.new_empty.default", "aten.sym_size", "aten.size"}


def main():
    req = json.load(open(sys.argv[1]))
    import numpy as np
    import torch
    from torch.fx.experimental.proxy_tensor import make_fx
    try:
        from torch.func import functional_call
    except ImportError:
        from torch.nn.utils.stateless import functional_call

    cls = load_class(req["model"], req["class"])
    torch.manual_seed(int(req.get("seed", 0)))
    try:
        model = cls(**req.get("kwargs", {}))
    except Exception as e:
        raise Refused("%s(**%s) fails: %s: %s" % (req["class"], json.dumps(req.get("kwargs", {})), type(e).__name__, e))
    if not isinstance(model, torch.nn.Module):
        raise Refused("%s is not a torch.nn.Module" % req["class"])
    model.eval()  # dropout is the identity, as the program has none

    params = named_tensors(model, "_parameters")
    buffers = named_tensors(model, "_buffers")
    # One graph input per distinct tensor: a tied weight is one parameter.
    uniq, first = [], {}
    for path, t in params.items():
        if id(t) not in first:
            first[id(t)] = path
            uniq.append(t)
    index = {id(t): i for i, t in enumerate(uniq)}
    param_of = {path: first[id(t)] for path, t in params.items()}
    buf_paths = list(buffers)

    examples, example_meta = [], []
    for ex in req["examples"]:
        if "file" in ex:
            try:
                a = np.load(ex["file"], allow_pickle=False)
            except Exception as e:
                raise Refused("example %s: %s does not load: %s" % (ex["name"], ex["file"], e))
            t = torch.from_numpy(np.ascontiguousarray(a))
        else:
            dt = getattr(torch, ex["dtype"], None)
            if not isinstance(dt, torch.dtype):
                raise Refused("example %s: %r is not a dtype (float32, int64, …)" % (ex["name"], ex["dtype"]))
            t = torch.zeros(ex["shape"], dtype=dt)
        examples.append(t)
        example_meta.append((ex["name"], t))

    def forward(ps, bs, *xs):
        state = {path: ps[index[id(t)]] for path, t in params.items()}
        state.update({p: b for p, b in zip(buf_paths, bs)})
        return functional_call(model, state, tuple(xs))

    # The module path of every node: a hook keeps the stack of modules
    # running, and each node made takes the innermost's path.
    names = {m: n for n, m in model.named_modules(remove_duplicate=False)}
    stack = []
    hooks = []
    def enter(name):
        def hook(mod, args):
            stack.append(name)
        return hook

    def leave(mod, args, result):
        stack.pop()

    for m, n in names.items():
        hooks.append(m.register_forward_pre_hook(enter(n)))
        hooks.append(m.register_forward_hook(leave))
    import torch.fx as fx
    made = fx.Graph.create_node

    def create_node(self, *a, **k):
        node = made(self, *a, **k)
        node.meta["stridelab_module"] = stack[-1] if stack else ""
        return node

    fx.Graph.create_node = create_node
    try:
        gm = make_fx(forward, tracing_mode="fake")(list(uniq), [buffers[p] for p in buf_paths], *examples)
    except Refused:
        raise
    except Exception as e:
        raise Refused("the trace of %s's forward fails: %s: %s" % (req["class"], type(e).__name__, str(e).splitlines()[0] if str(e) else ""))
    finally:
        fx.Graph.create_node = made
        for h in hooks:
            h.remove()

    gm.graph.eliminate_dead_code()  # the results nothing reads (a layer norm's mean, a saved softmax)
    nodes = list(gm.graph.nodes)
    placeholders = [n for n in nodes if n.op == "placeholder"]
    np_ = len(uniq)
    nb = len(buf_paths)
    role = {}  # node → ("param", path) | ("buffer", path) | ("example", i)
    for i, n in enumerate(placeholders):
        if i < np_:
            role[n] = ("param", first[id(uniq[i])])
        elif i < np_ + nb:
            role[n] = ("buffer", buf_paths[i - np_])
        else:
            role[n] = ("example", i - np_ - nb)

    def meta(n):
        v = n.meta.get("val")
        if isinstance(v, torch.Tensor):
            return list(v.shape), str(v.dtype).replace("torch.", "")
        return None, None

    # const[n]: n's value depends on no parameter and no example.
    const = {}
    for n in nodes:
        if n.op == "placeholder":
            const[n] = role[n][0] == "buffer"
        elif n.op == "get_attr":
            const[n] = True
        elif n.op == "call_function":
            if str(n.target) in SHAPE_ONLY:
                const[n] = True
            else:
                const[n] = all(const.get(a, True) for a in n.all_input_nodes)
    out_node = [n for n in nodes if n.op == "output"][0]
    loss = out_node.args[0]
    if isinstance(loss, (list, tuple)):
        if len(loss) != 1:
            raise Refused("%s's forward returns %d values; it must return the loss alone (a scalar)" % (req["class"], len(loss)))
        loss = loss[0]
    shape, _ = meta(loss) if isinstance(loss, fx.Node) else (None, None)
    if shape is None or shape != []:
        raise Refused("%s's forward returns %s, not a scalar loss: return the loss (e.g. F.cross_entropy(...), or .sum())" %
                      (req["class"], "a tensor of shape %s" % shape if shape is not None else type(loss).__name__))
    if const.get(loss):
        raise Refused("%s's loss depends on no parameter and no example" % req["class"])

    # Fold: compute every constant node that a varying node reads.
    real = {}
    for n, (kind, what) in role.items():
        if kind == "buffer":
            real[n] = buffers[what]
    needed = set()
    for n in nodes:
        if n.op == "call_function" and not const[n]:
            for a in n.all_input_nodes:
                if const[a]:
                    needed.add(a)

    def value(n):
        if n in real:
            return real[n]
        if n.op == "get_attr":
            v = getattr(gm, n.target)
        else:
            args = fx.node.map_arg(n.args, value)
            kwargs = fx.node.map_arg(n.kwargs, value)
            if str(n.target) in SHAPE_ONLY:
                args = fx.node.map_arg(n.args, lambda a: torch.zeros(meta(a)[0], dtype=getattr(torch, meta(a)[1])) if const.get(a) is False else value(a))
            v = n.target(*args, **kwargs)
        real[n] = v
        return v

    out = {"nodes": [], "loss": loss.name, "parameters": [], "examples": [], "constants": []}
    files = {}
    written = set()

    by_content = {}

    def save(name, t, share=True):
        """t as DIR/name.npy (float32, ints as int32; bools as 0 and 1), or, with share,
        the file of an equal constant saved before (every layer's copy of
        one mask)."""
        if not req.get("out"):
            return None
        f = name + ".npy"
        if req.get("values", True) or t.numel() <= 1 << 22:
            c = t.detach().cpu().contiguous()
            key = (tuple(c.shape), str(c.dtype), hashlib.sha1(c.numpy().tobytes()).hexdigest())
            if share and key in by_content:
                return by_content[key]
            if share:
                by_content[key] = f
            if f not in written:
                a = c.to(torch.float32) if c.dtype == torch.bool else c
                a = a.numpy()
                if a.dtype.kind == "f":
                    a = a.astype(np.float32)
                elif a.dtype.kind in "iu" and (a.size == 0 or np.abs(a).max() < 1 << 31):
                    a = a.astype(np.int32)  # ids: int32 (the importer makes those no gather reads float32)
                np.save(os.path.join(req["out"], f), a)
                written.add(f)
            return f
        return None

    for n in placeholders:
        kind, what = role[n]
        shape, dtype = meta(n)
        if kind == "param":
            out["parameters"].append({"node": n.name, "path": what, "shape": shape, "dtype": dtype,
                                      "also": sorted(p for p, q in param_of.items() if q == what and p != what)})
        elif kind == "example":
            name, t = example_meta[what]
            out["examples"].append({"node": n.name, "name": name, "shape": shape, "dtype": dtype})
    if req.get("values", True) and req.get("out"):
        for p in out["parameters"]:
            p["values"] = p["node"] + ".npy"
        for e in out["examples"]:
            e["values"] = e["node"] + ".npy"

    def enc(a):
        if isinstance(a, fx.Node):
            return {"ref": a.name}
        if isinstance(a, (list, tuple)):
            return [enc(x) for x in a]
        if isinstance(a, dict):
            return {str(k): enc(v) for k, v in a.items()}
        if isinstance(a, bool) or a is None or isinstance(a, (int, str)):
            return a
        if isinstance(a, float):
            if math.isinf(a) or math.isnan(a):
                return {"float": str(a)}
            return a
        return {"repr": str(a)}

    for n in nodes:
        if n.op != "call_function" or const[n]:
            continue
        shape, dtype = meta(n)
        rec = {"name": n.name, "target": str(n.target) if n.target is not operator.getitem else "getitem",
               "args": enc(n.args), "kwargs": enc(dict(n.kwargs)), "shape": shape, "dtype": dtype,
               "module": n.meta.get("stridelab_module", "")}
        # a mask a masked_fill or a where reads is folded into the two
        # constants the program multiplies and adds by
        t = str(n.target)
        if t.startswith("aten.masked_fill") and isinstance(n.args[1], fx.Node) and const[n.args[1]]:
            m = value(n.args[1]).to(torch.bool)
            fill = n.args[2]
            fill = value(fill).item() if isinstance(fill, fx.Node) else float(fill)
            keep = (~m).to(torch.float32)
            add = torch.where(m, torch.tensor(fill, dtype=torch.float32), torch.tensor(0.0))
            rec["keep"] = {"name": n.name + "_keep", "shape": list(keep.shape)}
            rec["fill"] = {"name": n.name + "_fill", "shape": list(add.shape)}
            files[n.name + "_keep"] = keep.contiguous()
            files[n.name + "_fill"] = add.contiguous()
        elif t.startswith("aten.where") and isinstance(n.args[0], fx.Node) and const[n.args[0]]:
            c = value(n.args[0]).to(torch.bool)
            a, b = n.args[1], n.args[2]

            def fixed(x):  # a constant branch's value, or None for one that varies
                if isinstance(x, fx.Node):
                    return value(x).to(torch.float32) if const[x] else None
                return torch.tensor(float(x))

            va, vb = fixed(a), fixed(b)
            zero = torch.tensor(0.0)
            if vb is not None:  # a where c, else the constant b: a·c + (b where not c)
                keep, add, rec["vary"] = c.to(torch.float32), torch.where(c, zero, vb), 1
            elif va is not None:  # the constant a where c, else b: b·(1 − c) + (a where c)
                keep, add, rec["vary"] = (~c).to(torch.float32), torch.where(c, va, zero), 2
            else:  # both vary: a·c + b·(1 − c)
                keep, add, rec["vary"] = c.to(torch.float32), (~c).to(torch.float32), 0
            rec["keep"] = {"name": n.name + "_keep", "shape": list(keep.shape)}
            rec["fill"] = {"name": n.name + "_fill", "shape": list(add.shape)}
            files[n.name + "_keep"] = keep.contiguous()
            files[n.name + "_fill"] = add.contiguous()
        out["nodes"].append(rec)
    def folded_into_users(a):
        """a is only ever a masked_fill's or a where's mask, which that
        node's own two constants replace."""
        users = [u for u in a.users if not const[u]]
        def folds(u, a):
            t = str(u.target)
            if t.startswith("aten.masked_fill"):
                return a is u.args[1]
            # a where's condition, or a constant branch its fill holds
            return t.startswith("aten.where") and isinstance(u.args[0], fx.Node) and const[u.args[0]] and (
                a is u.args[0] or any(a is x for x in u.args[1:]) and not all(isinstance(x, fx.Node) and not const[x] for x in u.args[1:] if x is not a))

        return users and all(folds(u, a) for u in users)

    for a in sorted(needed, key=nodes.index):
        if folded_into_users(a):
            continue
        v = value(a)
        if not isinstance(v, torch.Tensor):
            continue  # a Python number: the nodes read it as a literal
        files[a.name] = v
        out["constants"].append({"node": a.name, "shape": list(v.shape), "dtype": str(v.dtype).replace("torch.", ""),
                                 "module": a.meta.get("stridelab_module", "")})
    for name, t in files.items():
        f = save(name, t)
        for c in out["constants"]:
            if c["node"] == name:
                c["values"] = f
        for rec in out["nodes"]:
            for k in ("keep", "fill"):
                if k in rec and rec[k]["name"] == name:
                    rec[k]["values"] = f
    if req.get("values", True) and req.get("out"):
        for p in out["parameters"]:
            t = uniq[[first[id(u)] for u in uniq].index(p["path"])]
            save(p["node"], t, share=False)
        for e, (name, t) in zip(out["examples"], example_meta):
            save(e["node"], t, share=False)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    try:
        main()
    except Refused as e:
        fail(e)
