args: evaluate --parallel-block maybe
exit: 2
stdout: ignore
stderr: --parallel-block: expected on or off, got "maybe"
