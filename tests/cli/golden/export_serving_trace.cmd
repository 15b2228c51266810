args: export presets/scenarios/serve-dsv3-dpattn-8xh200.parallax.json --trace /tmp/parallax-never-written.json
exit: 2
stderr: --trace: a serving scenario has no training step to draw; its serving report and memory per GPU are in --markdown
stdout: ignore
