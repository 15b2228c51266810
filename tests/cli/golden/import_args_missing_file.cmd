args: import-args tests/cli/data/missing.sh
exit: 2
stderr: cannot open
stdout: ignore
