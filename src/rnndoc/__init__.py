"""rnndoc: recurrent networks derived with sympy and proven against PyTorch."""

__version__ = "0.1.0"
