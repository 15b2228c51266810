args: export presets/scenarios/serve-dsv3-dpattn-8xh200.parallax.json --compare 1f1b,dualpipe --markdown /tmp/parallax-never-written.md
exit: 2
stderr: --compare: a serving scenario has no pipeline schedule to compare
stdout: ignore
