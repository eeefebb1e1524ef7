from .ops import add_one, scale
