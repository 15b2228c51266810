args: export presets/scenarios/llama3-70b-64xh100.parallax.json --compare 1f1b,zigzag --gantt /tmp/parallax-never-written.svg
exit: 2
stderr: --compare: unknown schedule "zigzag"
stdout: ignore
