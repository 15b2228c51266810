args: matrix --gpu h300
exit: 2
stderr: --gpu: no GPU preset "h300"; use one of
stdout: ignore
