"""The importer tests' reference: the module's own forward and backward
in PyTorch at float64, compared with runs of the imported program.

usage: reference.py MODEL.py CLASS KWARGS_JSON SEED EXAMPLES_DIR EXAMPLE_NAME... -- IMPORT_DIR:RUN_DIR...
Examples are EXAMPLES_DIR/NAME.npy, in order. For each run, prints one
JSON line: {"run": RUN_DIR, "loss": [torch, program], "loss_err":
|a − b| / max(1, |a|), "grads": {path: ‖g_program − g_torch‖ / ‖g_torch‖}}.
"""
import importlib.util
import json
import os
import sys

import numpy as np
import torch

sep = sys.argv.index("--")
model_file, cls_name, kwargs, seed, exdir = sys.argv[1:6]
names, runs = sys.argv[6:sep], sys.argv[sep + 1:]
spec = importlib.util.spec_from_file_location("m", model_file)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
torch.manual_seed(int(seed))
model = getattr(mod, cls_name)(**json.loads(kwargs)).double().eval()
args = []
for name in names:
    t = torch.from_numpy(np.load(os.path.join(exdir, name + ".npy")))
    args.append(t.double() if t.is_floating_point() else t)
loss = model(*args)
loss.backward()
for pair in runs:
    imp, run = pair.split(":", 1)
    params = json.load(open(os.path.join(imp, "params.json")))
    got = float(np.load(os.path.join(run, params["loss"] + ".npy")))
    out = {"run": run, "loss": [loss.item(), got], "loss_err": abs(got - loss.item()) / max(1.0, abs(loss.item())), "grads": {}}
    for path, p in model.named_parameters():
        g = np.load(os.path.join(run, "grad_" + params["parameters"][path]["input"] + ".npy")).astype(np.float64)
        want = p.grad.numpy()
        out["grads"][path] = float(np.linalg.norm(g - want) / max(np.linalg.norm(want), 1e-12))
    print(json.dumps(out))
