args: evaluate presets
exit: 2
stderr: "presets" is a directory: give a regular file
stdout: ignore
memory_mb: 1024
seconds: 30
