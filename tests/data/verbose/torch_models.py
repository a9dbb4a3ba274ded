# Small PyTorch models whose oneDNN verbose logs are tests/data/verbose/torch_{bf16,int8}_2.6.3.log:
#   DNNL_VERBOSE=1 /usr/bin/python3 torch_models.py bf16|int8 (Debian python3-torch 1.13, oneDNN 2.6.3).
import sys, torch, torch.nn as nn
torch.manual_seed(0)
torch.set_num_threads(1)
what = sys.argv[1]
if what == "bf16":
    m = nn.Sequential(nn.Conv2d(3, 16, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(), nn.Linear(16*7*7, 10))
    x = torch.randn(4, 3, 16, 16)
    with torch.no_grad(), torch.autocast("cpu", dtype=torch.bfloat16):
        m(x)
    m2 = m.to(torch.bfloat16)
    out = m2(x.to(torch.bfloat16)); out.float().sum().backward()
    ln = nn.LayerNorm(32); ln(torch.randn(4, 32)).sum().backward()
    torch.softmax(torch.randn(8, 100), dim=1); torch.log_softmax(torch.randn(8, 100), dim=1)
    nn.functional.interpolate(torch.randn(1, 4, 8, 8), scale_factor=2, mode="bilinear")
elif what == "int8":
    torch.backends.quantized.engine = "onednn"
    import torch.ao.quantization as q
    class M(nn.Module):
        def __init__(s):
            super().__init__(); s.q = q.QuantStub(); s.c = nn.Conv2d(3, 16, 3); s.r = nn.ReLU(); s.l = nn.Linear(16*14*14, 10); s.d = q.DeQuantStub()
        def forward(s, x):
            x = s.r(s.c(s.q(x))); return s.d(s.l(x.flatten(1)))
    m = M().eval(); m.qconfig = q.get_default_qconfig("onednn")
    p = q.prepare(m); p(torch.randn(2, 3, 16, 16)); c = q.convert(p)
    with torch.no_grad():
        c(torch.randn(2, 3, 16, 16))
