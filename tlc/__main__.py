"""``python -m tlc``: the same as the ``tlc`` command."""
from tlc.cli import main

main()
