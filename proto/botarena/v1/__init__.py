"""Generated protocol code for ``botarena.v1``; regenerate with ``make proto``, never edit."""
