args: export presets/scenarios/serve-dsv3-dpattn-8xh200.parallax.json --trace /tmp/parallax-never-written.json
exit: 2
stderr: --trace: a serving scenario has no training step to draw; its serving report is in --markdown, its memory per GPU in --memory
stdout: ignore
