"""A finished span-reader fit continued over more examples (``--extend``) restarts its rate at half the peak and
decays it to zero at the new end, the heads at 20 times the body's rate as in the first run."""

from __future__ import annotations

import pytest
import torch

from lab.fit_span_reader import _extension_schedule


def test_the_extended_rate_restarts_at_half_the_peak_and_ends_at_zero() -> None:
    body, head = torch.nn.Parameter(torch.zeros(1)), torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.AdamW([{"params": [body], "lr": 0.0}, {"params": [head], "lr": 0.0}])
    sched = _extension_schedule(opt, 5e-5, start=100, total=300)
    assert [g["lr"] for g in opt.param_groups] == pytest.approx([2.5e-5, 5e-4])
    for _ in range(100):
        opt.step()
        sched.step()
    assert opt.param_groups[0]["lr"] == pytest.approx(1.25e-5)  # half way through the extension
    for _ in range(100):
        opt.step()
        sched.step()
    assert [g["lr"] for g in opt.param_groups] == pytest.approx([0.0, 0.0])
