args: evaluate tests/cli/data/model-number.parallax.json
exit: 1
stderr: model: must be a model preset name \(a string\) or a model object
stdout: ignore
memory_mb: 1024
seconds: 30
