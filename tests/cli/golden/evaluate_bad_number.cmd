args: evaluate --tp eight
exit: 2
stderr: --tp: expected a number
stdout: ignore
