// SPDX-License-Identifier: Apache-2.0
#include "CliArgs.h"
#include "Commands.h"

#include <exception>
#include <functional>
#include <iostream>
#include <map>
#include <new>

namespace {

const char* kUsage = R"(parallax-cli: parallelism explorer for LLM training (headless)

usage:
  parallax-cli evaluate [FILE] [--flags] [--json [--no-groups]] [--calibration FILE]   (--no-groups: without rank_map.groups and ranks)
  parallax-cli schedule --pp P --microbatches M --schedule S [--vpp V] [--f T --b T --w T] [--overlap FB] [--json]
                        [--out FILE.svg|.png|.pdf] [--scale S]
  parallax-cli schedule FILE [--json] [--out FILE.svg|.png|.pdf] [--scale S]
  parallax-cli export [FILE] [--flags] [--gantt OUT] [--rankmap OUT] [--memory OUT] (OUT: .svg, .png or .pdf)
                      [--trace OUT.json] [--markdown OUT.md] [--scale S (PNG)] [--compare SCHED1,SCHED2,...]
                      [--rankmap-dim tp|cp|dp|pp|ep|edp|etp]
  parallax-cli export [FILE] [--flags] --launch megatron|nemo|torchtitan|slurm|vllm|sglang|trtllm OUT|-   launch of the design
  parallax-cli recommend [FILE] [--flags] [--top K] [--json] [--lesson] [--calibration FILE]
                        (with --cp-comm-type the search keeps that CP communication; without, it tries each)
  parallax-cli matrix [--json | --markdown] [--global-batch N] [--seq-len N] [--dtype bf16|fp8] [--calibration FILE]
                     [--models ID,ID,...] [--gpu-counts N,N,...] [--gpu ID] [--gpus-per-node G] [--nic-gbps X]
                     the guide's summary matrix (3 models x 8, 64, 1024 H100), or the rows and cluster given
  parallax-cli presets [--json]
  parallax-cli ranks [FILE] [--flags] [--dim tp|cp|dp|pp|ep|etp|edp|dp-cp] [--json] [--limit N | --all]
                     the communicator groups Megatron-Core builds for the layout, and where each rank runs
  parallax-cli import-args FILE|- [--gpu NAME --nodes N --gpus-per-node G --nic-gbps X] [--out FILE.parallax.json]
                     a Megatron-LM command line (or the flags an export wrote) as a scenario
  parallax-cli check-log --log LOG [FILE | --script LAUNCH.sh] [--flags] [--warmup N] [--record RUNS.json] [--json]
                     a Megatron-LM, NeMo 2.0 or torchtitan training log (export --launch slurm runs one) against
                     the prediction; --record adds the run to a runs file that validate --data reads
  parallax-cli validate [--json] [--data FILE] [--scenario ID]   the engine against published training runs
  parallax-cli validate --serving [--json] [--data FILE]         the serving engine against published serving figures
                        (exit 1 when an error bound is exceeded; --scenario prints one run as a scenario file)
  parallax-cli --version | --help

scenario flags: --model NAME|FILE.json|config.json (Hugging Face) --gpu NAME --nodes N --gpus-per-node G --nic-gbps X --tp N --sp on|off
  --pp N --vpp N --dp N --ep N --cp N --zero 0-3 --schedule S --micro-batch N --global-batch N --seq-len N
  --cp-comm-type p2p|all_gather|a2a|a2a+p2p --cp-a2a-size N (the all-to-all level of a2a+p2p)
  --recompute none|selective|full --dtype bf16|fp8 --flash-attention on|off --parallel-block on|off --tp-comm-overlap on|off
  --dp-overlap on|off --p2p-overlap on|off --ddp-bucket-size PARAMS
  (without FILE the flags edit the default scenario, llama3-70b-64xh100: what they leave out is its, e.g. pp 8)
serving flags: --mode inference --weight-dtype bf16|fp8|int8|int4|nvfp4|mxfp4 --kv-dtype bf16|fp8 --isl N --osl N
  --context-len N --concurrency N|max --gpu-memory-utilization F --speculative-tokens K --draft-acceptance A
  --draft-model NAME (a model preset that drafts; without it the model's MTP module does)
  --speculative-method mtp|draft_model|eagle3
exit codes: 0 report computed (it may say fits: false), 1 invalid configuration (validate: a bound exceeded),
  2 bad usage or unreadable file
)";

} // namespace

int main(int argc, char** argv)
{
    using namespace parallax::cli;
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::cout << kUsage;
        return args.empty() ? kExitUsage : kExitOk;
    }
    if (args[0] == "--version") {
        std::cout << "parallax-cli " << PARALLAX_VERSION << "\n";
        return kExitOk;
    }
    const std::map<std::string, std::function<int(const std::vector<std::string>&)>> commands {
        { "evaluate", runEvaluate },
        { "export", runExport },
        { "presets", runPresets },
        { "schedule", runSchedule },
        { "recommend", runRecommend },
        { "matrix", runMatrix },
        { "validate", runValidate },
        { "ranks", runRanks },
        { "import-args", runImportArgs },
        { "check-log", runCheckLog },
    };
    const auto it = commands.find(args[0]);
    if (it == commands.end()) {
        std::cerr << "parallax-cli: unknown command \"" << args[0] << "\" (see parallax-cli --help)\n";
        return kExitUsage;
    }
    try {
        return it->second({ args.begin() + 1, args.end() });
    } catch (const InvalidConfigError& e) {
        std::cerr << "parallax-cli " << args[0] << ": " << e.what() << "\n";
        return kExitInvalidConfig;
    } catch (const UsageError& e) {
        std::cerr << "parallax-cli " << args[0] << ": " << e.what() << "\n";
        return kExitUsage;
    } catch (const std::bad_alloc&) {
        std::cerr << "parallax-cli " << args[0] << ": out of memory; give a smaller input\n";
        return kExitUsage;
    } catch (const std::exception& e) {
        // Every input error has its own message above; this is a defect worth a report.
        std::cerr << "parallax-cli " << args[0] << ": failed (" << e.what()
                  << "); please report this input at the project's issue tracker\n";
        return kExitUsage;
    }
}
