args: validate --data presets
exit: 2
stderr: "presets" is a directory
stdout: ignore
memory_mb: 1024
seconds: 30
