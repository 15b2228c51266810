args: evaluate --tpp 8
exit: 2
stderr: unknown option --tpp
stdout: ignore
