"""The plain-Python forward pass against torch.nn.RNN."""

import pytest
import torch
from hypothesis import given
from strategies import rnn_problems, torch_rnn

from rnndoc.reference import rnn_forward
from rnndoc.verdict import assert_close


@given(rnn_problems(scale=1.5))
def test_matches_nn_rnn(problem):
    names = ("weight_ih_l0", "weight_hh_l0", "bias_ih_l0", "bias_hh_l0")
    preactivations, hidden = rnn_forward(
        problem["inputs"][0].tolist(), problem["h_0"][0, 0].tolist(), *(problem[k].tolist() for k in names)
    )  # the first sequence of the batch
    output, h_n = torch_rnn(problem)(problem["inputs"], problem["h_0"])  # (N, L, H), (1, N, H)
    assert_close(hidden, output[0].detach(), atol=1e-14, what="hidden")
    assert_close(hidden[-1], h_n[0, 0].detach(), atol=1e-14, what="h_n")
    assert_close(
        torch.tanh(torch.tensor(preactivations, dtype=torch.float64)), hidden, atol=1e-15, what="tanh"
    )


def test_hand_computed_first_step():
    # a_1 = W_ih x_1 + b_ih + W_hh h_0 + b_hh, by hand for the seed's numbers: (0.45, -0.075)
    a, h = rnn_forward(
        [[1.0, 0.0]],
        [0.1, -0.2],
        [[0.4, -0.2], [0.1, 0.3]],
        [[0.5, 0.15], [-0.25, 0.4]],
        [0.05, -0.1],
        [-0.02, 0.03],
    )
    assert a[0] == pytest.approx([0.45, -0.075], abs=1e-15)
    assert h[0] == pytest.approx([0.4218990052500079, -0.0748596906874991], abs=1e-15)


@pytest.mark.parametrize(
    ("argument", "kwargs"),
    [
        ("inputs", {"inputs": [[1.0, 2.0, 3.0]]}),
        ("h_0", {"h_0": [0.0]}),
        ("weight_hh", {"weight_hh": [[0.0, 0.0]]}),
        ("bias_ih", {"bias_ih": [0.0, 0.0, 0.0]}),
    ],
)
def test_shape_errors_name_the_argument(argument, kwargs):
    args = {
        "inputs": [[1.0, 0.0]],
        "h_0": [0.0, 0.0],
        "weight_ih": [[1.0, 0.0], [0.0, 1.0]],
        "weight_hh": [[0.0, 0.0], [0.0, 0.0]],
        "bias_ih": [0.0, 0.0],
        "bias_hh": [0.0, 0.0],
    } | kwargs
    with pytest.raises(ValueError, match=rf"^{argument} must have shape \(.*\), got "):
        rnn_forward(**args)


def test_the_handset_witness_never_imports_torch():
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    code = (
        "import sys; from rnndoc.reference import handset_forward; _, h = handset_forward(); "
        "assert 'torch' not in sys.modules, 'torch was imported'; print(h[-1][0])"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    assert float(result.stdout) == pytest.approx(0.25336085288950694, abs=1e-15)
