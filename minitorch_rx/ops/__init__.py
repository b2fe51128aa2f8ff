"""Differentiable ops, one module per family; each op is a ``Function`` with its backward beside it."""
