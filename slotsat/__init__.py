"""slotsat: equality-saturation multi-buffering for PyPTO tile kernels and ptoas."""

__version__ = "0.1.0"
