// SPDX-License-Identifier: Apache-2.0
// Runs the built parallax-probe with every GPU hidden (CUDA_VISIBLE_DEVICES=-1), so that the
// no-device path is exercised the same way here (no driver: cudaErrorInsufficientDriver) and on
// a GPU machine (cudaErrorNoDevice).

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace {

struct ProbeRun {
    int exitCode = -1;
    std::string out;
    std::string err;
};

std::string slurp(const std::string& path)
{
    std::ifstream in(path);
    std::ostringstream text;
    text << in.rdbuf();
    return text.str();
}

ProbeRun runProbe(const std::vector<std::string>& args, const std::string& workingDirectory = {})
{
    const auto dir = std::filesystem::temp_directory_path()
        / ("parallax-probe-run-" + std::to_string(static_cast<long>(getpid())));
    std::filesystem::create_directories(dir);
    const std::string outPath = (dir / "stdout").string(), errPath = (dir / "stderr").string();

    std::vector<std::string> argvStrings { PARALLAX_PROBE_BINARY };
    argvStrings.insert(argvStrings.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (std::string& s : argvStrings)
        argv.push_back(s.data());
    argv.push_back(nullptr);

    std::vector<std::string> envStrings;
    for (char** e = environ; *e; ++e) {
        if (std::string(*e).rfind("CUDA_VISIBLE_DEVICES=", 0) != 0)
            envStrings.emplace_back(*e);
    }
    envStrings.emplace_back("CUDA_VISIBLE_DEVICES=-1");
    std::vector<char*> envp;
    for (std::string& s : envStrings)
        envp.push_back(s.data());
    envp.push_back(nullptr);

    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const std::filesystem::path previous = std::filesystem::current_path();
    if (!workingDirectory.empty())
        std::filesystem::current_path(workingDirectory);
    pid_t pid = 0;
    const int spawned = posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), envp.data());
    std::filesystem::current_path(previous);
    posix_spawn_file_actions_destroy(&actions);

    ProbeRun run;
    if (spawned != 0) {
        run.err = "posix_spawn failed: " + std::to_string(spawned);
        return run;
    }
    int status = 0;
    waitpid(pid, &status, 0);
    run.exitCode = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    run.out = slurp(outPath);
    run.err = slurp(errPath);
    std::filesystem::remove_all(dir);
    return run;
}

} // namespace

TEST(ProbeBinary, NoDeviceIsExitThreeWithOneLine)
{
    const auto dir = std::filesystem::temp_directory_path()
        / ("parallax-probe-nodevice-" + std::to_string(static_cast<long>(getpid())));
    std::filesystem::create_directories(dir);
    const ProbeRun run = runProbe({ "--out", "calibration.json" }, dir.string());
    EXPECT_EQ(run.exitCode, 3);
    EXPECT_EQ(run.err, "parallax-probe: no CUDA device found: using datasheet numbers\n");
    EXPECT_EQ(run.out, "");
    EXPECT_FALSE(std::filesystem::exists(dir / "calibration.json")); // the datasheet stays in charge
    std::filesystem::remove_all(dir);

    const ProbeRun defaults = runProbe({});
    EXPECT_EQ(defaults.exitCode, 3);
    EXPECT_EQ(defaults.err, "parallax-probe: no CUDA device found: using datasheet numbers\n");
}

TEST(ProbeBinary, BadArgumentsAreExitTwoWithOneLine)
{
    struct Case {
        std::vector<std::string> args;
        std::string err;
    };
    const Case cases[] = {
        { { "--bogus" }, "parallax-probe: unknown option '--bogus' (see --help)\n" },
        { { "--repeats", "zero" }, "parallax-probe: --repeats must be an integer, got 'zero'\n" },
        { { "--tp", "16" },
            "parallax-probe: --kv-heads=8 is not divisible by --tp=16: each rank needs whole KV heads; "
            "use a tp that divides 8\n" },
    };
    for (const Case& c : cases) {
        const ProbeRun run = runProbe(c.args);
        EXPECT_EQ(run.exitCode, 2) << c.err;
        EXPECT_EQ(run.err, c.err);
        EXPECT_EQ(run.out, "");
    }
}

TEST(ProbeBinary, HelpVersionAndListNeedNoDevice)
{
    const ProbeRun help = runProbe({ "--help" });
    EXPECT_EQ(help.exitCode, 0);
    EXPECT_EQ(help.out.rfind("Usage: parallax-probe", 0), 0u);
    EXPECT_EQ(help.err, "");

    const ProbeRun version = runProbe({ "--version" });
    EXPECT_EQ(version.exitCode, 0);
    EXPECT_EQ(version.out.rfind("parallax-probe ", 0), 0u);
    EXPECT_EQ(std::count(version.out.begin(), version.out.end(), '\n'), 1);

    const ProbeRun list = runProbe({ "--list", "--quick" });
    EXPECT_EQ(list.exitCode, 0) << list.err;
    EXPECT_EQ(list.out.rfind("No usable CUDA device here (", 0), 0u) << list.out;
    EXPECT_NE(list.out.find("qkv.fwd"), std::string::npos);
    EXPECT_NE(list.out.find("Condition: fp8 GEMMs run only on compute capability >= 8.9"), std::string::npos);
    EXPECT_EQ(list.out.find("wgrad"), std::string::npos); // --quick: forward shapes only
    EXPECT_EQ(list.err, "");
}
