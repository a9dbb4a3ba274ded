// Every command's JSON document, declared once (contract.h). A member here is written by the
// JSON printer in every document of its command, null when the run had nothing for it; the
// schemas in schemas/ are generated from these lists (`dlcheck schema COMMAND`).
#include "report/contract.h"
#include "report/primitive_columns.h"

namespace dlcheck::report::contract {
namespace {

// The parts several documents share, each declared once.

std::vector<Member> CpuMembers() {
  return {Text("source"),
          Text("vendor"),
          Text("brand"),
          Integer("family"),
          Integer("model"),
          Integer("stepping"),
          Text("microarchitecture"),
          Boolean("hypervisor"),
          Text("hypervisor_vendor"),
          Integer("logical_cpus"),
          Text("xcr0"),
          Text("xsave_supported"),
          Boolean("amx_permission"),
          Text("libcpuid_version"),
          Object("amx_tiles", {Integer("tiles"), Integer("rows"), Integer("bytes_per_row")}),
          Rows("core_kinds", {Text("kind"), Integer("logical_cpus"), Boolean("same_features")})};
}

std::vector<Member> PlatformMembers() {
  return {
      Object("cpu", CpuMembers()),
      Object("levels", {Text("x86_64"), Text("onednn_max_isa"), Text("onednn_effective_isa"),
                        Boolean("onednn_agrees"), Text("basis")}),
      KeyedRows("features", {Boolean("cpuid"), Boolean("os"), Boolean("libcpuid"),
                             Boolean("kernel"), Boolean("usable"), Boolean("probe")}),
      Rows("probes", {Text("feature"), Boolean("cpuid"), Boolean("probe"), Text("detail")}),
  };
}

Member TopologyMember() {
  return Object(
      "topology",
      {Text("source"), Boolean("is_this_system"), Integer("packages"), Integer("numa_nodes"),
       Integer("dies"), Integer("groups"), Integer("cores"), Integer("pus"),
       Integer("smt_per_core"), Integer("l3_instances"), Integer("memory_mib"),
       Integer("allowed_pus"), Text("allowed_cpuset"), Boolean("allowed_differs"),
       Rows("caches", {Integer("level"), Text("type"), Integer("size_kib"), Integer("instances"),
                       Integer("cores_per_instance"), Integer("pus_per_instance")}),
       Rows("numa", {Integer("os_index"), Integer("memory_mib"), Integer("cores"), Integer("pus")}),
       Rows("core_kinds", {Text("name"), Integer("efficiency"), Integer("cores"), Integer("pus"),
                           Text("infos")})});
}

Member ColumnMember(const primitive_column::Column& column) {
  switch (column.type) {
    case Type::kInteger:
      return Integer(column.name);
    case Type::kNumber:
      return Number(column.name);
    case Type::kBoolean:
      return Boolean(column.name);
    case Type::kText:
      break;
  }
  return Text(column.name);
}

// The columns of a primitives table (report/primitive_columns.h), then `extra`.
std::vector<Member> PrimitiveColumns(std::vector<Member> extra = {}) {
  std::vector<Member> columns;
  for (const primitive_column::Column& column : kPrimitiveColumns) {
    columns.push_back(ColumnMember(column));
  }
  for (Member& m : extra) columns.push_back(std::move(m));
  return columns;
}

std::vector<Member> Prefixed(std::vector<Member> first, std::vector<Member> then) {
  for (Member& m : then) first.push_back(std::move(m));
  return first;
}

Member InputMember(bool with_files) {
  std::vector<Member> members;
  if (with_files) members.push_back(List("files", Type::kText));
  for (Member m : {Integer("lines"), Integer("events"), Integer("info_lines"), Integer("skipped"),
                   Map("skipped_by_reason", Type::kInteger)}) {
    members.push_back(std::move(m));
  }
  return Object("input", std::move(members));
}

Member HeaderMember() {
  return Object("header", {Text("library_version"), Text("runtime"), Integer("threads"),
                           Text("isa"), Text("isa_name")});
}

Member SummaryMember() {
  const auto shares = [](const char* name, const char* key) {
    return Rows(name, {Text(key), Integer("rows"), Integer("execs"), Number("exec_ms"),
                       Number("time_pct")});
  };
  return Object("summary", {Integer("rows"), Integer("creates"), Integer("cache_hits"),
                            Number("cache_hit_rate"), Number("create_ms"),
                            Integer("nested_creates"), Number("nested_create_ms"), Integer("execs"),
                            Number("exec_ms"), Number("reorder_exec_ms"), Number("reorder_pct"),
                            Number("first_exec_ms_mean"), Number("steady_exec_ms_mean"),
                            Integer("diagnostics"), Integer("graph_pattern_matcher_lines"),
                            shares("by_kind", "primitive"), shares("by_fallback", "fallback")});
}

Member DiagnosticsMember() {
  return Rows("diagnostics", {Text("operation"), Text("primitive"), Text("implementation"),
                              Text("message"), Integer("count"), Integer("first_line")});
}

// A log holds dlcheck's worker lines when dlcheck wrote it (--raw-log): then rows have a layer.
Member EventsMember() {
  std::vector<Member> columns = {
      Integer("line"),     Text("era"),       Text("operation"),      Text("cache"),
      Text("engine"),      Text("primitive"), Text("implementation"), Text("isa"),
      Text("isa_source"),  Text("fallback"),  Text("prop_kind"),      Text("memory_descriptors"),
      Text("attributes"),  Text("auxiliary"), Text("problem"),        Number("time_ms"),
      Number("timestamp"), Text("message"),   Text("layer")};
  return Rows("events", std::move(columns));
}

Member TraceMember() {
  return Rows("trace",
              {Text("name"), Text("category"), Number("ts_us"), Number("dur_us"), Integer("thread"),
               Text("layer"), Text("implementation"), Text("prop_kind"), Text("problem")});
}

// Where the figures of a timed run come from (cli/run_view's AddNoiseGuard).
std::vector<Member> NoiseGuardMembers() {
  return {Text("threads_from"), Number("load_start"), Number("load_end")};
}

// The model run's fields, as `verbose` reports them.
std::vector<Member> ModelRunMembers() {
  return Prefixed({Text("model"),
                   Text("layers"),
                   Text("backend_requested"),
                   Text("backend"),
                   Text("dtype"),
                   Integer("batch"),
                   Integer("train_samples"),
                   Integer("warmup_iters"),
                   Integer("timed_iters"),
                   Number("timed_s"),
                   Integer("traced_iters"),
                   Integer("threads"),
                   Number("samples_per_s"),
                   Number("samples_per_s_min"),
                   Number("samples_per_s_max"),
                   Number("spread_pct"),
                   Number("step_ms"),
                   Number("step_ms_traced"),
                   Number("verbose_overhead_pct"),
                   Number("loss_first"),
                   Number("loss_last"),
                   Number("test_accuracy"),
                   Number("max_deviation"),
                   Text("deviation_tensor"),
                   Number("tolerance"),
                   Text("onednn_version"),
                   Text("detected_isa"),
                   Text("worker")},
                  NoiseGuardMembers());
}

Document Platform() {
  std::vector<Member> members = PlatformMembers();
  members.insert(members.begin() + 2, TopologyMember());
  return {"platform", "what the machine can do: ISA features layer by layer, levels, topology",
          std::move(members)};
}

Document Check() {
  std::vector<Member> members = {
      Object("check", {Text("status"), Integer("exit_status"), Text("summary"), Text("perfdata"),
                       Text("host")}),
      Rows("checks", {Text("check"), Text("status"), Text("detail")}),
      Object("run", {Text("model"),
                     Integer("batch"),
                     Integer("warmup_iters"),
                     Number("timed_s"),
                     Integer("traced_iters"),
                     Integer("threads"),
                     Text("max_cpu_isa"),
                     Text("backend"),
                     Integer("train_samples"),
                     Number("max_deviation"),
                     Text("deviation_tensor"),
                     Number("tolerance"),
                     Number("loss_first"),
                     Integer("timed_iters"),
                     Number("samples_per_s"),
                     Number("samples_per_s_min"),
                     Number("samples_per_s_max"),
                     Number("step_ms_timed"),
                     Number("step_ms_traced"),
                     Number("loss_last"),
                     Text("worker")}),
  };
  for (Member& m : PlatformMembers()) members.push_back(std::move(m));
  return {"check", "the provisioning smoke check: requirements, probes and a short model pass",
          std::move(members)};
}

Document Parse() {
  return {"parse",
          "the per-primitive report of oneDNN verbose logs",
          {Object("options", {Text("sort"), Integer("top"), Boolean("events"), Boolean("strict"),
                              Text("benchdnn_version"), Text("benchdnn_batch")}),
           InputMember(/*with_files=*/true), HeaderMember(), SummaryMember(),
           Rows("primitives", PrimitiveColumns({ColumnMember(primitive_column::kLayer),
                                                ColumnMember(primitive_column::kFile)})),
           Rows("headers", {Text("file"), Text("library_version"), Text("runtime"),
                            Integer("threads"), Text("isa"), Text("isa_short")}),
           DiagnosticsMember(), EventsMember(), TraceMember()}};
}

Document Verbose() {
  return {"verbose",
          "a model trained through oneDNN in a worker, every primitive per layer",
          {Object("run", ModelRunMembers()), InputMember(/*with_files=*/false), SummaryMember(),
           Rows("primitives", PrimitiveColumns({ColumnMember(primitive_column::kLayer)})),
           DiagnosticsMember(), EventsMember(), TraceMember()}};
}

Document Run() {
  return {"run",
          "a program run with oneDNN verbose on, and the per-primitive report of its log",
          {Object("run", {Text("command"), Integer("exit_status"), Text("ended"), Text("signal"),
                          Text("forwarded_signal"), Number("wall_s"), Text("onednn_version"),
                          Text("runtime"), Integer("threads"), Text("isa"), Number("exec_ms"),
                          Number("exec_pct_of_wall"), Integer("verbose_lines"),
                          Integer("program_lines"), Integer("program_bytes")}),
           InputMember(/*with_files=*/false), HeaderMember(), SummaryMember(),
           Rows("primitives", PrimitiveColumns({ColumnMember(primitive_column::kLayer)})),
           DiagnosticsMember(), EventsMember(), TraceMember()}};
}

Document Dispatch() {
  // `dispatch --model` and `dispatch -- CMD` write one document: the members of either.
  std::vector<Member> run = {Text("model"),
                             Text("dtype"),
                             Integer("batch"),
                             Integer("warmup_iters"),
                             Integer("timed_iters"),
                             Number("timed_s"),
                             Integer("traced_iters"),
                             Text("command"),
                             List("isa_caps", Type::kText),
                             List("thread_sets", Type::kText),
                             Integer("cap_threads"),
                             Integer("threads"),
                             Integer("repeat"),
                             Integer("runs"),
                             Text("onednn_version"),
                             Boolean("perf_map"),
                             Text("interrupted_by")};
  for (Member& m : NoiseGuardMembers()) run.push_back(std::move(m));
  return {
      "dispatch",
      "the model (or a program) under each oneDNN ISA cap and thread set, side by side",
      {Object("run", std::move(run)),
       Rows("primitives",
            Prefixed({Text("isa_cap"), ColumnMember(primitive_column::kLayer), Text("config"),
                      Text("thread_set"), Integer("run")},
                     PrimitiveColumns({Number("ms_per_step"), Number("speedup_vs_scalar"),
                                       Number("speedup_vs_lowest"), Number("peak_gflops"),
                                       Number("peak_fraction")}))),
       Rows("runs",
            {Text("isa_cap"), Text("backend"), Integer("threads"), Text("dispatched_isa"),
             Number("samples_per_s"), Number("samples_per_s_min"), Number("samples_per_s_max"),
             Number("speedup_vs_scalar"), Number("speedup_vs_lowest"), Number("max_deviation"),
             Number("peak_gflops"), Text("worker"), Text("perf_map")}),
       Rows("threads",
            {Text("thread_set"), Integer("threads"), Text("cpuset"), Number("samples_per_s"),
             Number("speedup"), Number("efficiency"), Text("worker")}),
       Rows("configs", {Text("config"), Text("isa_cap"), Text("thread_set"), Integer("threads"),
                        Text("cpuset"), Integer("log_threads"), Text("log_isa"), Integer("runs"),
                        Number("wall_s"), Number("wall_s_min"), Number("wall_s_max"),
                        Number("spread_pct"), Number("exec_ms"), Text("exit_status")})}};
}

Document Diff() {
  return {"diff",
          "two runs compared primitive by primitive",
          {Object("summary",
                  {Text("a"), Text("b"), Integer("rows_matched"), Integer("changed_implementation"),
                   Integer("worse_class"), Integer("slower"), Integer("faster"), Integer("new"),
                   Integer("vanished"), Number("exec_ms_a"), Number("exec_ms_b"),
                   Number("exec_time_ratio"), Number("threshold_pct"), Integer("regressions")}),
           Rows("primitives",
                {Text("primitive"), Text("prop_kind"), Text("problem"), Text("layer"),
                 Text("change"), Boolean("regressed"), Text("implementation_a"),
                 Text("implementation_b"), Text("isa_a"), Text("isa_b"), Text("fallback_a"),
                 Text("fallback_b"), Integer("execs_a"), Integer("execs_b"),
                 Number("exec_ms_mean_a"), Number("exec_ms_mean_b"), Number("ratio")})}};
}

Document Profile() {
  return {"profile",
          "where the CPU time goes: classes, JIT kernels by primitive, off-CPU time",
          {Object("profile", {Text("command"),
                              Text("ended"),
                              Text("event"),
                              Integer("frequency_hz"),
                              Text("call_graph"),
                              Integer("samples"),
                              Number("duration_s"),
                              Integer("processes"),
                              Integer("threads"),
                              Integer("jit_kernels"),
                              Number("operator_attributed_pct"),
                              Integer("scanned_samples"),
                              Integer("timed_executions"),
                              Integer("exec_joined_samples"),
                              Number("samples_per_s"),
                              Number("timed_s"),
                              Integer("verbose_lines"),
                              Number("verbose_exec_ms"),
                              Boolean("off_cpu_recorded"),
                              Number("off_cpu_s"),
                              Number("blocked_s"),
                              Number("preempted_s"),
                              Text("perf_data")}),
           Rows("classes", {Text("class"), Integer("samples"), Number("pct"), Text("description")}),
           Rows("kernels", {Text("kernel"), Text("primitive"), Text("implementations"),
                            Integer("samples"), Number("pct"), Number("pct_of_jit")}),
           Rows("by_primitive",
                {Text("primitive"), Text("implementations"), Integer("jit_samples"),
                 Number("sampled_pct"), Number("verbose_exec_ms"), Number("verbose_pct")}),
           Rows("operators", {Text("operator"), Integer("samples"), Number("pct"),
                              Integer("jit_samples"), Integer("onednn_samples"),
                              Integer("blas_samples"), Text("beneath"), Text("primitives")}),
           Rows("off_cpu", {Text("state"), Number("seconds"), Number("pct"), Integer("switches"),
                            Text("wait"), Text("stack")}),
           Rows("primitives", PrimitiveColumns({ColumnMember(primitive_column::kLayer)}))}};
}

Document Fleet() {
  return {"fleet",
          "many hosts' reports grouped by what the nodes can do",
          {Object("fleet", {Integer("reports"), Integer("hosts"), Integer("groups"),
                            Integer("skipped"), Integer("versions")}),
           Rows("groups", {Integer("group"), Integer("hosts"), Text("hostlist"), Boolean("best"),
                           Text("cpu"), Text("onednn_isa"), Integer("sockets"),
                           Integer("numa_nodes"), Integer("cores"), Integer("pus"), Text("status"),
                           List("lacks", Type::kText), List("features", Type::kText)}),
           Rows("outliers", {Text("host"), Text("problem")}),
           Rows("skipped", {Text("file"), Text("reason")}),
           Rows("versions", {Text("dlcheck_version"), Integer("hosts"), Text("hostlist")})}};
}

}  // namespace

const std::vector<Document>& All() {
  static const std::vector<Document> kAll = {Platform(), Parse(), Verbose(), Run(),  Dispatch(),
                                             Check(),    Diff(),  Profile(), Fleet()};
  return kAll;
}

}  // namespace dlcheck::report::contract
