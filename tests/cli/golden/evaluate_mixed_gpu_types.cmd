args: evaluate tests/data/mixed-h200-h100.parallax.json
exit: 0
