"""The importer tests' reference: the module's own forward and backward
in PyTorch at float64, compared with a run of the imported program.

usage: reference.py MODEL.py CLASS KWARGS_JSON SEED IMPORT_DIR RUN_DIR EXAMPLE.npy...
prints {"loss": [torch, program], "loss_err": |a-b|/max(1,|a|),
        "grads": {path: ||g_program - g_torch|| / max(||g_torch||, 1e-12)}}
"""
import importlib.util
import json
import os
import sys

import numpy as np
import torch

model_file, cls_name, kwargs, seed, imp, run = sys.argv[1:7]
examples = sys.argv[7:]
spec = importlib.util.spec_from_file_location("m", model_file)
mod = importlib.util.module_from_spec(spec)
spec.loader.exec_module(mod)
torch.manual_seed(int(seed))
model = getattr(mod, cls_name)(**json.loads(kwargs)).double().eval()
args = []
for f in examples:
    a = np.load(f)
    t = torch.from_numpy(a)
    if t.is_floating_point():
        t = t.double()
    args.append(t)
loss = model(*args)
loss.backward()
params = json.load(open(os.path.join(imp, "params.json")))
got = float(np.load(os.path.join(run, params["loss"] + ".npy")))
out = {"loss": [loss.item(), got], "loss_err": abs(got - loss.item()) / max(1.0, abs(loss.item())), "grads": {}}
for path, p in model.named_parameters():
    entry = params["parameters"][path]
    g = np.load(os.path.join(run, "grad_" + entry["input"] + ".npy")).astype(np.float64)
    want = p.grad.numpy()
    out["grads"][path] = float(np.linalg.norm(g - want) / max(np.linalg.norm(want), 1e-12))
json.dump(out, sys.stdout)
