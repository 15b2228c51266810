args: ranks --model llama3-8b --dim xp
exit: 2
stderr: --dim: unknown dimension "xp"
stdout: ignore
