from .ops import add_one, scale

__all__ = ["add_one", "scale"]
