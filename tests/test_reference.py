"""The plain-Python forward pass against torch.nn.RNN."""

import pytest
import torch
from hypothesis import given
from strategies import rnn_problems, torch_rnn

from rnndoc.verdict import assert_close
from rnndoc.reference import rnn_forward


@given(rnn_problems(scale=1.5))
def test_matches_nn_rnn(problem):
    args = [problem[k].tolist() for k in ("inputs", "h_0", "weight_ih", "weight_hh", "bias_ih", "bias_hh")]
    preactivations, hidden = rnn_forward(*args)
    output, h_n = torch_rnn(problem)(problem["inputs"], problem["h_0"].unsqueeze(0))  # unbatched
    assert_close(hidden, output.detach(), atol=1e-14, what="hidden")
    assert_close(hidden[-1], h_n[0].detach(), atol=1e-14, what="h_n")
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
