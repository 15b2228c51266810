args: validate --data tests/cli/data/no-such-file.json
exit: 2
stderr: cannot open
stdout: ignore
