#!/usr/bin/env bash
# Every GPU run behind the reference data in benchmarks/results/h100/ and the checks, in stages
# that each fit one device call (10 minutes):
#
#   benchmarks/reproduce.sh STAGE [STAGE ...]
#
#   build              configure and build poisson_solver, gpu_tests, tpmg_bench, bank_probe
#   gpu-tests          the GPU test suite (every kernel's GPU result against the CPU runner)
#   sanitizer          compute-sanitizer memcheck, racecheck, synccheck on 18 solver runs
#   sanitizer-bp       the same tools on the BP kernels (k = 3, 7, all geometries)
#   natural-terms      the three tools on Neumann/Robin faces with what joined them later: constant a and c on
#                      every Cartesian smoother kernel family, bp3/bp5 level operators (Chebyshev-Jacobi), a
#                      coefficient that varies, the mapped quarter annulus, pure Neumann with c > 0
#   periodic           prm/periodic_channel.prm under the three tools (every smoother kernel family, Chebyshev-
#                      Jacobi with bp3, k = 1, 2D fully periodic), then k = 3 levels 4 and 5 against the same
#                      problem with Dirichlet faces, two rounds of 5 solves: the cost of the ghost copies
#   fitted-faces       the fitted patches on Neumann/Robin faces (the annulus, the sine mesh, a coefficient, pure
#                      Neumann) and across periodic faces under the three tools; k = 3 on the sine mesh, levels 4
#                      and 5: Robin faces with the fitted patches against Chebyshev-Jacobi and Dirichlet faces
#   boundary-solves    prm/pure_neumann.prm against the same problem with Dirichlet faces (u = g), k = 3
#                      levels 5 and 6, two rounds of 5 solves: the cost of the faces' patches and operators
#   sanitizer-boundary the same tools on solves with Neumann faces (prm/neumann_faces.prm: every smoother
#                      kernel, Chebyshev-Jacobi, k = 1, 2D; prm/pure_neumann.prm), and four larger solves
#   robin              prm/robin_faces.prm under the three tools (every smoother kernel, Chebyshev-Jacobi,
#                      k = 1, 2D, every face Robin), then k = 3 levels 5 and 6 against the same problem
#                      with Dirichlet faces, two rounds of 5 solves: the cost of the Robin faces
#   host-sanitizers    the CPU test suite under ASan + UBSan (scripts/sanitizers.sh address tests; a CPU build)
#   operator           level operator `cartesian`: 3D k = 2..8, and k = 1 (stencil) in 2D and 3D
#   transfer           restriction + prolongation, 3D k = 1..8 and 2D k = 1..10
#   smoother-3d-float  one smoothing step, every kernel and optimization, 3D k = 1..8, float
#   smoother-3d-double the same in double
#   smoother-2d        2D k = 1..10, fused and global, linear_indexing and basic
#   smoother-lumped    3D fused kernels with GLL-lumped masses (the bp5 smoother)
#   smoother-threads   basic kernels: one thread per column against one per DoF
#   smoother-sizes     3D fused linear_indexing at 5e7, 1.5e8 and 4e8 DoFs
#   smoother-bytes     what b's and the level's DRAM bytes cost a smoothing step: 3D fused float k = 1, 3, 7
#                      from levels the L2 cache holds to 1e8 DoFs, b apart and b aliased to x, two rounds
#   patches-per-block  3D fused linear_indexing with P = 1, 2, 4, 8, 16 patches per block
#   memory-floor       the memory skeleton of the fused fiber kernels (a second build)
#   skeleton-compare   the fused smoother against its memory skeleton, 3D float k = 1, 3, 5, 7 at 1e8 DoFs
#                      (the skeleton's build as memory-floor's), alternating, two rounds
#   roofline           the roofline charts from the smoother CSVs (no GPU needed)
#   storage16          what storing the V-cycle's vectors in 16 bits does to the iterations: a CPU build
#                      with TPMG_EMULATE_16BIT_STORAGE=1 (no GPU needed) rounds them to half or bfloat16
#                      by role; k = 1, 3, 7 Table 7 files at 0.1-2.1 M DoFs, and k = 3 with f = 1, g = 0
#   bp                 CEED BP1/BP3/BP5, all geometries, float and double, 1e7 DoFs
#   bp-vector          BP2/BP4/BP6, double
#   bp-cg              the CEED CG-iteration metric
#   bp-sizes           BP3/BP5 throughput against size
#   table7             the paper's Table 7 solves, right and left preconditioning
#   user-problem       Table 7 sizes with the right-hand side, boundary values and exact solution
#                      given as expressions: setup (rhs_time_s) against the solve
#   coefficient        prm/coefficient.prm under the three sanitizer tools; solves with a coefficient against
#                      a = 1 at the same size
#   coefficient-iterations  iterations and solve times for coefficient contrasts 10 and 1000, k = 3 and 7,
#                      levels 2..4, against a = 1 (the same smoother, and the Laplacian's default solver)
#   reaction           prm/reaction.prm under the three sanitizer tools; solves with a reaction term c u
#                      against c = 0 at the same size (bp3 k = 3, bp5 k = 7)
#   constant-reaction  a constant c (c = 1/Δt of an implicit time step) on the Laplacian's own kernels: the
#                      three tools on every smoother kernel family with c, solves with c = 1e3 against c = 0
#                      (k = 3, 7), and examples/heat_equation at 7.2 M DoFs (needs example_heat_equation built)
#   mapped             prm/quarter_annulus.prm and prm/cylinder_section.prm under the three tools; iterations
#                      on the quarter annulus (exact and multilinear cells) against the box, k = 3 and 7,
#                      levels 2..4; timed solves of the three at 4.7 M DoFs
#   deformed           solves on sine- and Kershaw-deformed meshes
#   setup              every shipped parameter file as shipped: setup by part (setup_breakdown) against the
#                      solve and the whole process
#   setup-threads      the files whose setup has host loops (reaction, 3d_bp5_sine, periodic_channel) with
#                      OMP_NUM_THREADS = 1, 4, 16: setup by part
#   rhs-sizes          the expression right-hand side's seconds at levels 1-5 (1e3 to 3.6e6 DoFs) of four
#                      files, and processes with CUDA_MODULE_LOADING=LAZY against EAGER (the kernels' first
#                      loads), alternating, two rounds
#   fitted-polynomial  the fitted smoother's automatic polynomial against degree 16 over range 400 (and
#                      Chebyshev-Jacobi): sine files, Robin faces, mapped domains, the coefficient files
#   fitted-kernel      the fitted patch solves' 1D products as scalar multiply-adds against tile products on
#                      the FP64 and the TF32 tensor cores (Multigrid/Fitted patch kernel): Kershaw k = 4..8
#                      level 3 and k = 3 level 4, the sine file at k = 4 and 7, alternating, two rounds
#   cuda-graph         the V-cycle replayed as a CUDA graph against launch by launch (Backend/CUDA graph =
#                      never, auto, always), k = 1, 3, 7 from 1e4 to 6e7 DoFs, Kershaw k = 3 and Table 7 k = 3,
#                      alternating, two rounds of best-of-5 solves; two single solves (the recording in them)
#   many-solves        examples/many_solves (one PoissonSolver, five solves with new data) at 7.2 M DoFs
#                      beside poisson_solver's single solve of the same problem (needs example_many_solves built)
#   output             binary VTU files of 14 M and 29 M nodes and a strided one of the 722 M-DoF Table 7
#                      solve, timed as the process with the file against without; point values there
#   kershaw            CEED BPS5 on Kershaw meshes (prm/kershaw_bps5.prm): eps = 0.3, k = 7 at 4.8 M, 38 M
#                      and 305 M DoFs
#   kershaw-levels     the same, eps = 0.3 across levels: k = 3..7 on levels 1-3, k = 3 on level 4
#   nccl-channels      Backend/NCCL channels = 0 (NCCL's default), 4, 8, 16 on 2 GPUs: setup and solve of strong
#                      k = 7 and of k = 3 at 7.2 M DoFs, one GPU beside
#   fitted-launch      the fitted additive Schwarz step's patches by colour against all in one launch on Kershaw
#                      meshes (k = 7 levels 2 and 3, k = 3 level 4, k = 4 level 3), CUDA graph never and auto; the
#                      38 M-DoF case on 2 GPUs too
#   kershaw-table      the same: iterations for eps = 1, 0.7, 0.5, 0.3 and k = 1..8; the sine mesh across levels
#   kershaw-scan       the fitted smoother's Chebyshev degree and range across levels (k = 3 and 7)
#   mpi-tests          the solver on 2 and 4 MPI ranks sharing the GPU against one rank (ctest gpu.mpi_*)
#   sanitizer-mpi      compute-sanitizer under mpirun -np 2: halo exchange, every kernel on the ranks' parts
#   table7-ranks       the Table 7 solves (mixed) on 1, 2 and 4 ranks sharing the GPU
#   scaling            weak and strong scaling on 1, 2 and 4 GPUs of one host (one rank per GPU):
#                      Table 7 k = 3 and 7, a mid-size k = 3 solve, Kershaw BPS5, k = 7 at 2.9 G DoFs;
#                      NCCL against the host-staged path, the agglomeration floor, the L2 errors at
#                      1e-13; bad input and a failure on one rank over NCCL
#   overlap            the smoothers' exchanges beside the inner patches against after them
#                      (Backend/Overlap exchanges = auto, never, always), 4 GPUs, strong and weak
#                      k = 3 and 7, k = 3 at 7.2 M DoFs, Kershaw BPS5 level 3, alternating, two
#                      rounds (OVERLAP_ROUNDS; OVERLAP_CASES picks cases, OVERLAP_GPUS the GPUs;
#                      also kershaw2: level 2, 4.8 M DoFs, mid_k7: k = 7 level 5, 11 M DoFs, and
#                      k3_l7 / k7_l6: k = 3 level 7 and k = 7 level 6 with their whole cycles in
#                      the CUDA graph)
#   overlap-compare    this tree against another build (BUILD_OLD, or SOURCE_OLD built here, as
#                      table7-compare), or without either `Overlap exchanges = never` against
#                      `auto` in this build, on 1 and 2 GPUs (COMPARE_GPUS): strong k = 3 and 7,
#                      k = 3 at 7.2 M DoFs, weak k = 7, Kershaw BPS5 level 3, alternating, two
#                      rounds (OVERLAP_CASES picks cases); for the exchanges beside inner work
#   gather-compare     the transfer into rank 0's levels: `Gather level = fine` against `coarse`
#                      on 1 and 2 GPUs (COMPARE_GPUS), strong k = 3 and 7, k = 3 at 7.2 M DoFs,
#                      weak k = 7, Kershaw BPS5 level 3, and with `coarse` floors of DoFs per rank (GATHER_FLOORS) that
#                      keep the first split level on rank 0; alternating, two rounds
#   graph-ranks        the V-cycle as a CUDA graph over NCCL: `CUDA graph = never` against `auto`
#                      on 1 and 2 GPUs (COMPARE_GPUS), k = 3 at 7.2 M and 0.9 M DoFs, k = 7 at
#                      2.1 M, Kershaw BPS5 level 2 (4.8 M), best of 5, two rounds (GRAPH_ROUNDS);
#                      GRAPH_CASES picks cases, also strong_k7, strong_k3, weak_k7, weak_k3,
#                      kershaw (level 3) and largest_k7 (2.9 G DoFs, 4 GPUs only), the scaling
#                      stage's, where `auto` replays a graph of the coarser levels only;
#                      GRAPH_SETTINGS the settings (default "never auto"; auto:N also sets
#                      CUDA graph DoFs per rank = N)
#   mpi-gpu-tests      the GPU solver tests on several ranks (ctest gpu.mpi_solver_*: host staging
#                      and, with a GPU per rank, NCCL)
#   sanitizer-nccl     compute-sanitizer memcheck and racecheck on two ranks exchanging over NCCL
#   table7-compare     the Table 7 solves (mixed) of this tree and of another build side by side
#                      (BUILD_OLD: its build folder, SOURCE_OLD: its source tree, built here if needed)
#   solve-compare      small and large solves (k = 1, 3, 7 from 0.1 M to 7.2 M DoFs with the CUDA graph and
#                      k = 3 at 0.9 M without it, Kershaw BPS5 level 2, the Table 7 files) of this tree
#                      and of another build (BUILD_OLD or SOURCE_OLD, as table7-compare), alternating,
#                      two rounds
#   bp-compare         BP1/BP3/BP5 (stored and on_the_fly factors, float and double, 1e7 DoFs) of this tree and
#                      of another build (BUILD_OLD, as table7-compare), alternating, two rounds
#   small-solve-variants  k = 3 at 15.6 K and 913 K DoFs with every fused smoother optimization, 1, 4 and
#                      automatic patches per block, and the separate and global kernels, with the CUDA graph
#                      and launch by launch (per-level times), best of 5, two rounds
#   coarse-level       the coarse solve by fast diagonalization against the coarse mesh's hierarchy
#                      (`Multigrid/Coarse level = auto` / `mesh`), k = 1, 2, 3, 5, 7 from 15.6 K to
#                      57 M DoFs, the Table 7 files, best of 5 (3), two rounds, alternating
#   grid-sync-probe    a graph's kernel launch against a grid-wide barrier per dependent step
#                      (tools/grid_sync_probe.cu)
#   dense-coarse-probe the dense coarse solve a thread per row against a warp per row
#                      (tools/dense_coarse_probe.cu)
#   bank-probe         the shared-memory bank rule for 8-byte words, under Nsight Compute
#   profile-smoother   Nsight Compute counters of the fused smoother (not kept in the repository)
#   profile-source     per-instruction Nsight Compute export for tools/sass_stalls.py
#
# Outputs go to $OUT (default ./gpu-out), in the topic folders of benchmarks/results/<device>/
# (operator/, transfer/, smoother/, roofline/, bp/, table7/, solve/, checks/, hardware/), logs in
# $OUT/logs/; copying $OUT's topic folders over benchmarks/results/h100/ (or h200/) updates the
# reference data. The build folder is build-gpu (BUILD to change). What each file is, and which stage writes
# it: benchmarks/results/h100/README.md; the analysis: docs/performance/.
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
B=${BUILD:-build-gpu}
BENCH=$B/benchmarks/tpmg_bench
SOLVER=$B/apps/poisson_solver
mkdir -p "$OUT/logs"

[ $# -gt 0 ] || { sed -n '2,/^set /p' "$0" | sed '$d'; exit 2; }

# the summary line of a poisson_solver log (DoFs, iterations, residual, rate, time, DoF/s, errors, memory)
result_line() { grep -A1 '^DoFs' "$1" | tail -1; }
# one prm/kershaw_bps5.prm solve: results file, label, then --set arguments; appends the result line
kershaw_run() {
  local file=$1 label=$2; shift 2
  $SOLVER prm/kershaw_bps5.prm "$@" --set Output/Verbose=false > "$OUT/logs/kershaw.log" 2>&1
  echo "$label: $(result_line "$OUT/logs/kershaw.log")" | tee -a "$file"
}

# compute-sanitizer with each tool on one command; appends one line per tool to $1
sanitize() {
  local summary=$1 label=$2; shift 2
  for tool in memcheck racecheck synccheck; do
    compute-sanitizer --tool $tool --error-exitcode 3 "$@" < /dev/null > "$OUT/logs/sanitizer.tmp" 2>&1
    local rc=$?
    echo "$tool [$label]: exit $rc, $(grep -c -E '^========= (Invalid|Race|Barrier|Error)' "$OUT/logs/sanitizer.tmp") reports, $(grep 'ERROR SUMMARY' "$OUT/logs/sanitizer.tmp" | tail -1)" |
      tee -a "$summary"
    cat "$OUT/logs/sanitizer.tmp" >> "$OUT/logs/sanitizer_full.log"
  done
  rm -f "$OUT/logs/sanitizer.tmp"
}

# Nsight Compute on one launch of the fused 3D linear_indexing smoother, clocks untouched
NCU="ncu --clock-control none --kernel-name-base demangled --launch-skip 3 --launch-count 1"
smoother_case() { # k precision
  echo smoother --dim 3 --degrees "$1" --precision "$2" --kernel fused --optimization linear_indexing --dofs 5e7 --groups 1 --runs 1
}

# two rounds of the solves of one parameter file, 5 repetitions each: file, results, log folder;
# on stdin one case a line, "name --set ..."; one line per case and round in the results
timed_solves() {
  local file=$1 results=$2 logs=$3 round name args cases
  mapfile -t cases
  echo "# case round dofs iterations best_solve_s (of 5) setup_s L2" | tee "$results"
  for round in 1 2; do
    for line in "${cases[@]}"; do
      read -r name args <<< "$line"
      eval "set -- $args"
      $SOLVER "$file" --set Backend/Repetitions=5 "$@" --set Output/Verbose=false \
        --json "$logs/${name}_$round.json" > "$logs/${name}_$round.log" 2>&1 || echo "$name: exit $?"
      python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], sys.argv[3], r['dofs'], r['iterations'], '%.5f %.4f' % (r['solve_time_s'], r['setup_time_s']), r.get('l2_error'))" \
        "$logs/${name}_$round.json" "$name" "$round" | tee -a "$results"
    done
  done
}

# one solve on n GPUs, one rank per GPU, NCCL unless the --set arguments say otherwise: case GPUs
# label prm [--set ...]; the JSON report in $J/<case>_n<GPUs>_<label>.json
# the other build's poisson_solver for the *-compare stages: OLD = BUILD_OLD (default build-old),
# built here from the source tree SOURCE_OLD where it has none yet; fails where neither is there
build_old_solver() {
  OLD=${BUILD_OLD:-build-old}
  [ -x "$OLD/apps/poisson_solver" ] && return 0
  [ -n "${SOURCE_OLD:-}" ] || return 1
  cmake -S "$SOURCE_OLD" -B "$OLD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/logs/configure_old.log" 2>&1
  cmake --build "$OLD" -j "$(nproc)" --target poisson_solver > "$OUT/logs/build_old.log" 2>&1 || { tail -20 "$OUT/logs/build_old.log"; exit 1; }
}

export NCCL_NVLS_ENABLE=0
# A second build, $B-NAME, with measurement knobs (kernels/measurement_knobs.h) defined:
# build_variant NAME "-DKNOB=VALUE ..." [TARGET ...] (default tpmg_bench); sets S to its folder.
# The build continues if a call ran out of time.
build_variant() {
  S=$B-$1
  local flags=$2; shift 2
  cmake -S . -B "$S" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_CUDA_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" > "$OUT/logs/configure_$(basename "$S").log" 2>&1 ||
    { tail -30 "$OUT/logs/configure_$(basename "$S").log"; return 1; }
  /usr/bin/time -f "build $(basename "$S"): %e s" cmake --build "$S" -j 16 --target "${@:-tpmg_bench}" \
    > "$OUT/logs/build_$(basename "$S").log" 2>&1 || { grep error "$OUT/logs/build_$(basename "$S").log" | head; return 1; }
}
# $B-skeleton, with TPMG_SMOOTHER_MEMORY_SKELETON=1: the fused fiber kernels load the patch and
# read b / update x as usual but compute nothing; the results are wrong, the times are the floor
# of the kernels' memory structure.
build_skeleton() { build_variant skeleton -DTPMG_SMOOTHER_MEMORY_SKELETON=1; }

scale() {
  local c=$1 n=$2 label=$3 file=$4; shift 4
  [[ $c =~ ^(${SCALING_CASES:-.*})$ ]] || return 0 # (SCALING_CASES: a regex of the cases to run)
  local gpus; gpus=$(nvidia-smi -L | wc -l)
  [ "$n" -le "$gpus" ] || { echo "$c on $n GPUs: only $gpus here"; return; }
  local launch=""; [ "$n" -gt 1 ] && launch="mpirun --allow-run-as-root --bind-to none -np $n -x NCCL_NVLS_ENABLE"
  timeout 400 $launch $SOLVER "$file" "$@" --set Output/Verbose=false --json "$J/${c}_n${n}_$label.json" \
    > "$J/${c}_n${n}_$label.log" 2>&1 || echo "$c on $n GPUs ($label): exit $?"
}

for stage in "$@"; do
  echo "== $stage"
  case "$stage" in
    build)
      mkdir -p "$OUT/hardware"
      nvidia-smi --query-gpu=name,memory.total,memory.used,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/hardware/nvidia-smi.txt"
      cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/logs/configure.log" 2>&1 ||
        { tail -30 "$OUT/logs/configure.log"; exit 1; }
      targets=${BUILD_TARGETS:-poisson_solver gpu_tests tpmg_bench bank_probe} # (BUILD_TARGETS: fewer)
      grep -q "tpmg: MPI ON" "$OUT/logs/configure.log" && targets="$targets test_mpi_solver"
      /usr/bin/time -f "build: %e s" cmake --build "$B" -j "$(nproc)" --target $targets \
        > "$OUT/logs/build.log" 2>&1 || { grep -E "error" "$OUT/logs/build.log" | head -30; exit 1; }
      tail -1 "$OUT/logs/build.log"
      ;;
    host-sanitizers)
      mkdir -p "$OUT/checks"
      scripts/sanitizers.sh address tests 2>&1 | tee "$OUT/checks/host_sanitizers.txt"
      cp build-address/ctest.log "$OUT/logs/host_sanitizers_ctest.log" 2>/dev/null
      ;;
    gpu-tests)
      mkdir -p "$OUT/checks"
      $B/tests/gpu_tests 2>&1 | tee "$OUT/checks/gpu_tests.log" | grep -E "^\[  (FAILED|PASSED|  OK) |Failure|device:|exception" | head -40
      ;;
    sanitizer)
      mkdir -p "$OUT/checks"; rm -f "$OUT/checks/sanitizer.txt"
      while read -r args; do
        [ -z "$args" ] && continue
        eval "set -- $args"
        sanitize "$OUT/checks/sanitizer.txt" "$args" $SOLVER "$@" --set Output/Verbose=false
      done <<'RUNS'
prm/2d_fused_float.prm --set Mesh/Refinement\ level=4 --set Multigrid/Kernel\ optimization=basic
prm/3d_fused_double.prm --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=basic
prm/3d_separate_float.prm --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=basic
prm/3d_global_float.prm --set Mesh/Refinement\ level=2 --set Solver/Type=fmg --set Multigrid/Kernel\ optimization=basic
prm/3d_fused_float.prm --set Mesh/Refinement\ level=2
prm/chebyshev_3d.prm --set Mesh/Refinement\ level=2 --set Mesh/Coarse\ cells=2
prm/3d_fused_float.prm --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=conflict_free
prm/3d_separate_double.prm --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=reduced_residual
prm/2d_fused_float.prm --set Mesh/Refinement\ level=4 --set Multigrid/Kernel\ optimization=reduced_residual
prm/3d_global_float.prm --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=linear_indexing
prm/3d_fused_float.prm --set Polynomial\ degree=1 --set Mesh/Refinement\ level=4 --set Multigrid/Kernel\ optimization=linear_indexing
prm/3d_fused_double.prm --set Polynomial\ degree=8 --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=linear_indexing
prm/3d_separate_float.prm --set Polynomial\ degree=6 --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=linear_indexing
prm/2d_fused_double.prm --set Polynomial\ degree=1 --set Mesh/Refinement\ level=6 --set Multigrid/Kernel\ optimization=reduced_residual
prm/3d_fused_float.prm --set Mesh/Refinement\ level=2 --set Multigrid/Level\ operator=bp5 --set Mesh/Deformation=sine --set Mesh/Deformation\ amplitude=0.1 --set Multigrid/Geometric\ factors=on_the_fly
prm/3d_fused_double.prm --set Polynomial\ degree=2 --set Mesh/Coarse\ cells=6 --set Mesh/Refinement\ level=1 --set Multigrid/Level\ operator=bp3 --set Mesh/Deformation=kershaw --set Mesh/Deformation\ amplitude=0.7
prm/3d_fused_double.prm --set Polynomial\ degree=7 --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=tensor_core
prm/3d_fused_float.prm --set Polynomial\ degree=4 --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=tensor_core
RUNS
      ;;
    sanitizer-bp)
      mkdir -p "$OUT/checks"; rm -f "$OUT/checks/sanitizer_bp.txt"
      sanitize "$OUT/checks/sanitizer_bp.txt" "tpmg_bench bp k = 3,7, BP1/3/5, float+double, stored+on_the_fly+polynomial" \
        $BENCH bp --dim 3 --degrees 3,7 --bp 1,3,5 --precision both --geometry stored,on_the_fly,polynomial --deformation sine --dofs 1e5 --groups 1 --runs 1
      ;;
    sanitizer-boundary)
      mkdir -p "$OUT/checks"; rm -f "$OUT/checks/sanitizer_boundary.txt"
      two_d=(--set Dimension=2 --set "Mesh/Box lower=0,-1" --set "Mesh/Box upper=2,1" --set "Mesh/Coarse cells=2,2"
        --set "Problem/Boundary types=neumann,dirichlet,dirichlet,neumann" --set "Problem/Right-hand side function=3*exp(x)*sin(2*y)"
        --set "Problem/Boundary values=exp(x)*sin(2*y)" --set "Problem/Exact solution=exp(x)*sin(2*y)"
        --set "Problem/Boundary flux=abs(x) < 1e-9 ? -exp(x)*sin(2*y) : 2*exp(x)*cos(2*y)")
      while read -r args; do
        eval "set -- $args"
        [ "${1:-}" = 2d ] && { shift; set -- "${two_d[@]}" "$@"; }
        sanitize "$OUT/checks/sanitizer_boundary.txt" "${args:-default}" $SOLVER prm/neumann_faces.prm \
          --set "Mesh/Refinement level=2" --set Output/Verbose=false "$@"
      done <<'RUNS'

--set Multigrid/Smoother\ kernel=global
--set Multigrid/Smoother\ kernel=separate --set Multigrid/Kernel\ optimization=basic
--set Multigrid/Smoother=chebyshev_jacobi
--set Polynomial\ degree=1 --set Mesh/Refinement\ level=3
2d --set Polynomial\ degree=5 --set Mesh/Refinement\ level=3
RUNS
      # every face Neumann (singular): the default smoother, Chebyshev-Jacobi, FMG
      for args in "" "--set Multigrid/Smoother=chebyshev_jacobi" "--set Solver/Type=fmg"; do
        eval "set -- $args"
        sanitize "$OUT/checks/sanitizer_boundary.txt" "pure_neumann.prm ${args:-default}" $SOLVER prm/pure_neumann.prm \
          --set "Mesh/Refinement level=2" --set Output/Verbose=false "$@"
      done
      for f in neumann_faces pure_neumann; do
        for k in 3 7; do
          echo "$f k = $k: $($SOLVER prm/$f.prm --set "Polynomial degree=$k" --set "Mesh/Refinement level=$((k == 3 ? 5 : 4))" \
            --set Output/Verbose=false > "$OUT/logs/neumann.log" 2>&1; result_line "$OUT/logs/neumann.log")" |
            tee -a "$OUT/checks/sanitizer_boundary.txt"
        done
      done
      ;;
    robin)
      mkdir -p "$OUT/checks" "$OUT/solve"; rm -f "$OUT/checks/sanitizer_robin.txt"
      two_d=(--set Dimension=2 --set "Mesh/Box lower=0,-1" --set "Mesh/Box upper=2,1" --set "Mesh/Coarse cells=2,2"
        --set "Problem/Boundary types=robin,dirichlet,dirichlet,robin" --set "Problem/Right-hand side function=3*exp(x)*sin(2*y)"
        --set "Problem/Boundary values=exp(x)*sin(2*y)" --set "Problem/Exact solution=exp(x)*sin(2*y)"
        --set "Problem/Robin coefficient=1 + x^2 + y"
        --set "Problem/Boundary flux=abs(x) < 1e-9 ? (x^2 + y)*exp(x)*sin(2*y) : (2*cos(2*y) + (1 + x^2 + y)*sin(2*y))*exp(x)")
      every_face=(--set "Problem/Boundary types=robin" --set "Problem/Boundary values=0" --set "Problem/Boundary flux=1"
        --set "Problem/Exact solution=")
      while read -r args; do
        eval "set -- $args"
        [ "${1:-}" = 2d ] && { shift; set -- "${two_d[@]}" "$@"; }
        [ "${1:-}" = all ] && { shift; set -- "${every_face[@]}" "$@"; }
        sanitize "$OUT/checks/sanitizer_robin.txt" "${args:-default}" $SOLVER prm/robin_faces.prm \
          --set "Mesh/Refinement level=2" --set Output/Verbose=false "$@"
      done <<'RUNS'

--set Multigrid/Smoother\ kernel=global
--set Multigrid/Smoother\ kernel=separate --set Multigrid/Kernel\ optimization=basic
--set Multigrid/Smoother=chebyshev_jacobi
--set Polynomial\ degree=1 --set Mesh/Refinement\ level=3
--set Polynomial\ degree=8 --set Mesh/Refinement\ level=1
2d --set Polynomial\ degree=5 --set Mesh/Refinement\ level=3
all --set Solver/Type=fmg
RUNS
      J=$OUT/logs/robin; mkdir -p "$J"
      u='exp(x)*sin(2*y)*cos(z)'
      echo "# round faces level dofs iterations solve_s l2_error finest_smoother_s coarser_levels_s finest_matvec_s outer_matvec_s setup_s" |
        tee "$OUT/solve/robin_solves.txt"
      for round in 1 2; do
        for L in 5 6; do
          for faces in robin dirichlet; do
            set --
            [ $faces = dirichlet ] && set -- --set "Problem/Boundary types=dirichlet" --set "Problem/Boundary flux=0" \
              --set "Problem/Robin coefficient=0"
            $SOLVER prm/robin_faces.prm --set "Mesh/Refinement level=$L" --set Backend/Repetitions=5 "$@" \
              --json "$J/${faces}_$L.json" > "$J/${faces}_$L.log" 2>&1
            python3 -c "import json,sys; r=json.load(open(sys.argv[1])); b=r['breakdown']; print(*sys.argv[2:], r['dofs'], r['iterations'], min(r['solve_times_s']), r['l2_error'], b['finest_smoother'], b['coarser_levels'], b['finest_matvec'], b['outer_matvec'], r['setup_time_s'])" \
              "$J/${faces}_$L.json" $round $faces $L | tee -a "$OUT/solve/robin_solves.txt"
          done
        done
      done
      tar czf "$OUT/logs/robin_logs.tgz" -C "$OUT/logs" robin sanitizer_full.log && rm -rf "$J" "$OUT/logs/sanitizer_full.log"
      ;;
    natural-terms)
      mkdir -p "$OUT/checks"; rm -f "$OUT/checks/sanitizer_natural_terms.txt"
      constants=(--set Problem/Coefficient=2 --set "Problem/Reaction coefficient=40")
      while read -r file args; do
        eval "set -- $args"
        [ "${1:-}" = constants ] && { shift; set -- "${constants[@]}" "$@"; }
        sanitize "$OUT/checks/sanitizer_natural_terms.txt" "$file ${args:-default}" $SOLVER "prm/$file.prm" \
          --set Output/Verbose=false "$@"
      done <<'RUNS'
robin_faces constants --set Mesh/Refinement\ level=2
robin_faces constants --set Mesh/Refinement\ level=2 --set Multigrid/Smoother\ kernel=global
robin_faces constants --set Mesh/Refinement\ level=2 --set Multigrid/Smoother\ kernel=separate --set Multigrid/Kernel\ optimization=basic
robin_faces constants --set Polynomial\ degree=1 --set Mesh/Refinement\ level=3
neumann_faces constants --set Mesh/Refinement\ level=2 --set Polynomial\ degree=6
robin_faces --set Mesh/Refinement\ level=2 --set Multigrid/Level\ operator=bp3 --set Multigrid/Smoother=chebyshev_jacobi
robin_faces --set Mesh/Refinement\ level=2 --set Multigrid/Level\ operator=bp5 --set Multigrid/Smoother=chebyshev_jacobi --set Polynomial\ degree=5
robin_faces --set Mesh/Refinement\ level=2 --set Multigrid/Smoother=chebyshev_jacobi --set Problem/Coefficient=1+x^2
annulus_robin --set Mesh/Refinement\ level=3
pure_neumann --set Mesh/Refinement\ level=2 --set Problem/Reaction\ coefficient=1
RUNS
      ;;
    fitted-faces)
      # the fitted patches on Neumann and Robin faces (and across periodic faces): the sanitizer
      # tools, then solve times on the sine mesh against Dirichlet faces and Chebyshev-Jacobi
      mkdir -p "$OUT/checks" "$OUT/solve"; rm -f "$OUT/checks/sanitizer_fitted_faces.txt"
      sine=(--set Mesh/Deformation=sine --set Multigrid/Level\ operator=bp3)
      [ "${SANITIZE:-1}" = 1 ] && while read -r file args; do
        eval "set -- $args"
        [ "${1:-}" = sine ] && { shift; set -- "${sine[@]}" "$@"; }
        sanitize "$OUT/checks/sanitizer_fitted_faces.txt" "$file ${args:-default}" $SOLVER "prm/$file.prm" \
          --set Output/Verbose=false "$@"
      done <<'RUNS'
annulus_robin --set Mesh/Refinement\ level=3
robin_faces sine --set Mesh/Refinement\ level=2
robin_faces sine --set Mesh/Refinement\ level=1 --set Polynomial\ degree=7 --set Multigrid/Level\ operator=bp5
neumann_faces --set Mesh/Refinement\ level=2 --set Problem/Coefficient=1+x^2 --set Problem/Reaction\ coefficient=1+y^2
pure_neumann sine --set Mesh/Refinement\ level=2
periodic_channel --set Mesh/Refinement\ level=2 --set Problem/Coefficient=2+sin(2*pi*x)
RUNS
      [ "${TIMINGS:-1}" = 1 ] && timed_solves prm/robin_faces.prm "$OUT/solve/fitted_faces.txt" "$OUT/logs" <<'CASES'
robin_fitted_L4 --set Mesh/Refinement\ level=4 --set Mesh/Deformation=sine --set Multigrid/Level\ operator=bp3
robin_jacobi_L4 --set Mesh/Refinement\ level=4 --set Mesh/Deformation=sine --set Multigrid/Level\ operator=bp3 --set Multigrid/Smoother=chebyshev_jacobi
dirichlet_fitted_L4 --set Mesh/Refinement\ level=4 --set Mesh/Deformation=sine --set Multigrid/Level\ operator=bp3 --set Problem/Boundary\ types=dirichlet --set Problem/Robin\ coefficient=0 --set Problem/Boundary\ flux=0
robin_fitted_L5 --set Mesh/Refinement\ level=5 --set Mesh/Deformation=sine --set Multigrid/Level\ operator=bp3
dirichlet_fitted_L5 --set Mesh/Refinement\ level=5 --set Mesh/Deformation=sine --set Multigrid/Level\ operator=bp3 --set Problem/Boundary\ types=dirichlet --set Problem/Robin\ coefficient=0 --set Problem/Boundary\ flux=0
CASES
      ;;
    periodic)
      mkdir -p "$OUT/checks" "$OUT/solve"; rm -f "$OUT/checks/sanitizer_periodic.txt"
      [ "${SANITIZE:-1}" = 1 ] && while read -r args; do
        eval "set -- $args"
        sanitize "$OUT/checks/sanitizer_periodic.txt" "${args:-default}" $SOLVER prm/periodic_channel.prm \
          --set "Mesh/Refinement level=2" --set Output/Verbose=false "$@"
      done <<'RUNS'

--set Multigrid/Smoother\ kernel=global
--set Multigrid/Smoother\ kernel=separate --set Multigrid/Kernel\ optimization=basic
--set Multigrid/Smoother=chebyshev_jacobi --set Multigrid/Level\ operator=bp3
--set Polynomial\ degree=1 --set Mesh/Refinement\ level=3
--set Dimension=2 --set Mesh/Box\ lower=0,0 --set Mesh/Box\ upper=1,1 --set Mesh/Coarse\ cells=2,2 --set Problem/Boundary\ types=periodic --set Problem/Right-hand\ side\ function=8*pi^2*sin(2*pi*x)*cos(2*pi*y) --set Problem/Exact\ solution=sin(2*pi*x)*cos(2*pi*y) --set Problem/Boundary\ values=0 --set Polynomial\ degree=5
RUNS
      [ "${TIMINGS:-1}" = 1 ] && timed_solves prm/periodic_channel.prm "$OUT/solve/periodic.txt" "$OUT/logs" <<'CASES'
periodic_L4 --set Mesh/Refinement\ level=4
dirichlet_L4 --set Mesh/Refinement\ level=4 --set Problem/Boundary\ types=dirichlet
periodic_L5 --set Mesh/Refinement\ level=5
dirichlet_L5 --set Mesh/Refinement\ level=5 --set Problem/Boundary\ types=dirichlet
CASES
      ;;
    boundary-solves)
      mkdir -p "$OUT/solve"; J=$OUT/logs/boundary; mkdir -p "$J"
      u='cos(pi*x/2)*cos(pi*y)*cos(pi*(z - 0.5)) + 2'
      echo "# round faces level dofs iterations solve_s l2_error finest_smoother_s coarser_levels_s outer_vector_s" |
        tee "$OUT/solve/boundary_solves.txt"
      for round in 1 2; do
        for L in 5 6; do
          for faces in neumann dirichlet; do
            set -- --set "Problem/Boundary types=$faces"
            [ $faces = dirichlet ] && set -- "$@" --set "Problem/Boundary values=$u"
            $SOLVER prm/pure_neumann.prm --set "Mesh/Refinement level=$L" --set Backend/Repetitions=5 "$@" \
              --json "$J/${faces}_$L.json" > "$J/${faces}_$L.log" 2>&1
            python3 -c "import json,sys; r=json.load(open(sys.argv[1])); b=r['breakdown']; print(*sys.argv[2:], r['dofs'], r['iterations'], min(r['solve_times_s']), r['l2_error'], b['finest_smoother'], b['coarser_levels'], b['outer_vector'])" \
              "$J/${faces}_$L.json" $round $faces $L | tee -a "$OUT/solve/boundary_solves.txt"
          done
        done
      done
      ;;
    operator)
      mkdir -p "$OUT/operator"; o=$OUT/operator
      $BENCH operator --dim 3 --degrees 2,3,4,5,6,7,8 --precision both --dofs 5e7 --csv "$o/operator3d.csv" 2>&1 | tee "$o/operator3d.txt"
      $BENCH operator --dim 3 --degrees 1 --precision both --dofs 1.35e8 --csv "$o/operatork1_3d.csv" 2>&1 | tee "$o/operatork1_3d.txt"
      $BENCH operator --dim 2 --degrees 1 --precision both --dofs 6.7e7 --csv "$o/operatork1_2d.csv" 2>&1 | tee "$o/operatork1_2d.txt"
      ;;
    transfer)
      mkdir -p "$OUT/transfer"; o=$OUT/transfer
      $BENCH transfer --dim 3 --degrees 1,2,3,4,5,6,7,8 --precision both --dofs 5e7 --groups 3 --runs 5 --csv "$o/transfer3d.csv" 2>&1 | tee "$o/transfer3d.txt"
      $BENCH transfer --dim 2 --degrees 1,2,3,4,5,6,7,8,9,10 --precision both --dofs 3e7 --groups 3 --runs 5 --csv "$o/transfer2d.csv" 2>&1 | tee "$o/transfer2d.txt"
      ;;
    smoother-3d-float|smoother-3d-double)
      mkdir -p "$OUT/smoother"; prec=${stage#smoother-3d-}
      $BENCH smoother --dim 3 --degrees 1,2,3,4,5,6,7,8 --precision $prec --kernel all --optimization all --dofs 5e7 --groups 3 --runs 3 \
        --csv "$OUT/smoother/smoother3d_$prec.csv" 2>&1 | tee "$OUT/smoother/smoother3d_$prec.txt"
      ;;
    smoother-2d)
      mkdir -p "$OUT/smoother"
      for kernel in fused global; do
        $BENCH smoother --dim 2 --degrees 1,2,3,4,5,6,7,8,9,10 --precision both --kernel $kernel --optimization linear_indexing,basic --dofs 3e7 --groups 3 --runs 5 \
          --csv "$OUT/smoother/smoother2d_$kernel.csv" 2>&1 | tee "$OUT/smoother/smoother2d_$kernel.txt"
      done
      { cat "$OUT/smoother/smoother2d_fused.csv"; tail -n +2 "$OUT/smoother/smoother2d_global.csv"; } > "$OUT/smoother/smoother2d.csv"
      rm -f "$OUT/smoother/smoother2d_fused.csv" "$OUT/smoother/smoother2d_global.csv"
      ;;
    smoother-lumped)
      mkdir -p "$OUT/smoother"
      $BENCH smoother --dim 3 --degrees 2,3,4,5,6,7,8 --precision both --kernel fused --optimization linear_indexing,conflict_free --lumped --dofs 5e7 --groups 3 --runs 3 \
        --csv "$OUT/smoother/smoother3d_lumped.csv" 2>&1 | tee "$OUT/smoother/smoother3d_lumped.txt"
      ;;
    smoother-threads)
      mkdir -p "$OUT/smoother"
      $BENCH smoother --dim 3 --degrees 1,2,3,4,5,6,7,8 --precision both --kernel fused --optimization basic_column,basic_dof --dofs 5e7 --groups 3 --runs 3 \
        --csv "$OUT/smoother/threads3d.csv" 2>&1 | tee "$OUT/smoother/threads3d.txt"
      $BENCH smoother --dim 2 --degrees 1,2,3,4,5,6,7,8,9,10 --precision both --kernel fused --optimization basic_column,basic_dof --dofs 3e7 --groups 3 --runs 5 \
        --csv "$OUT/smoother/threads2d.csv" 2>&1 | tee "$OUT/smoother/threads2d.txt"
      ;;
    smoother-sizes)
      mkdir -p "$OUT/smoother"
      $BENCH smoother --dim 3 --degrees 2,3,4,5,6,7,8 --precision both --kernel fused --optimization linear_indexing --dofs 5e7,1.5e8,4e8 --groups 3 --runs 3 \
        --csv "$OUT/smoother/sizes.csv" 2>&1 | tee "$OUT/smoother/sizes.txt"
      ;;
    smoother-bytes)
      mkdir -p "$OUT/smoother"
      for round in 1 2; do
        for alias in "" --alias-b; do
          echo "== round $round, b ${alias:+aliased to x}${alias:-apart}"
          $BENCH smoother --dim 3 --degrees 1,3,7 --precision float --kernel fused --optimization linear_indexing \
            --dofs 1e6,2e6,4e6,1e7,1e8 --groups 5 --runs 10 $alias 2>&1 | grep -v "^#"
        done
      done 2>&1 | tee "$OUT/smoother/smoother_bytes.txt"
      ;;
    patches-per-block)
      # a P that a degree cannot take is refused with a one-line message; the other degrees run
      mkdir -p "$OUT/smoother"
      for prec in float double; do
        rm -f "$OUT/smoother/patches_per_block_$prec.txt"
        for P in 1 2 4 8 16; do
          $BENCH smoother --dim 3 --degrees 2,3,4,5,6,7,8 --precision $prec --kernel fused --optimization linear_indexing --patches-per-block $P \
            --dofs 5e7 --groups 3 --runs 3 --csv "$OUT/smoother/patches_per_block_${prec}_P$P.csv" 2>&1 | grep -E "GDoF|FAILED|rror" |
            sed "s/^/P=$P  /" | tee -a "$OUT/smoother/patches_per_block_$prec.txt"
        done
      done
      ;;
    memory-floor)
      build_skeleton || exit 1
      mkdir -p "$OUT/smoother"
      $S/benchmarks/tpmg_bench smoother --dim 3 --degrees 2,3,4,5,6,7,8 --precision both --kernel fused --optimization linear_indexing --dofs 5e7 --groups 3 --runs 3 \
        --csv "$OUT/smoother/memory_floor.csv" 2>&1 | tee "$OUT/smoother/memory_floor.txt"
      ;;
    skeleton-compare)
      # this build's fused smoother against its memory skeleton, alternating, two rounds
      build_skeleton || exit 1
      mkdir -p "$OUT/smoother"
      for round in 1 2; do
        for b in "$B" "$B-skeleton"; do
          echo "== round $round $(basename "$b")"
          "$b/benchmarks/tpmg_bench" smoother --dim 3 --degrees 1,3,5,7 --precision float --kernel fused \
            --optimization linear_indexing --dofs 1e8 --groups 5 --runs 10 2>&1 | grep smoother
        done
      done 2>&1 | tee "$OUT/smoother/memory_skeleton.txt"
      ;;
    storage16)
      # a CPU build whose float V-cycle rounds its vectors to 16 bits where storage would
      # (src/multigrid/storage16_emulation.h); each case from the same build, the float baseline
      # without TPMG_STORAGE16
      S=${BUILD_STORAGE16:-build-storage16}
      cmake -S . -B "$S" -DCMAKE_BUILD_TYPE=Release -DTPMG_ENABLE_CUDA=OFF -DTPMG_ENABLE_MPI=OFF -DTPMG_BUILD_TESTS=OFF \
        -DCMAKE_CXX_FLAGS=-DTPMG_EMULATE_16BIT_STORAGE=1 > "$OUT/logs/configure_storage16.log" 2>&1 ||
        { tail -30 "$OUT/logs/configure_storage16.log"; exit 1; }
      cmake --build "$S" -j "$(nproc)" --target poisson_solver > "$OUT/logs/build_storage16.log" 2>&1 ||
        { grep error "$OUT/logs/build_storage16.log" | head; exit 1; }
      mkdir -p "$OUT/solve" "$OUT/logs/storage16"
      R=$OUT/solve/storage16.txt
      echo "# case | storage | iterations | L2 error | residual history (GMRES)" | tee "$R"
      # storage: label, then the environment of storage16_emulation.h
      while read -r label env; do
        for c in "k3_118K table7_k3_mixed 4" "k3_913K table7_k3_mixed 5" "k7_1.4M table7_k7_mixed 4" "k1_2.1M table7_k1_mixed 7" \
          "k3_118K_f1_g0 table7_k3_mixed 4 Problem/Right-hand_side=function Problem/Right-hand_side_function=1 Problem/Boundary_values=0"; do
          read -r name file level extra <<< "$c"
          sets=(); for e in $extra; do sets+=(--set "${e//_/ }"); done
          env $env "$S/apps/poisson_solver" "prm/$file.prm" --set "Mesh/Refinement level=$level" --set Backend/Repetitions=1 "${sets[@]}" \
            --json "$OUT/logs/storage16/${name}_$label.json" < /dev/null > "$OUT/logs/storage16/${name}_$label.log" 2>&1 ||
            { echo "$name $label: exit $?"; continue; }
          python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], '|', sys.argv[3], '|', r['iterations'], '|', r.get('l2_error'), '|', ' '.join('%.1e' % h for h in r['residual_history']))" \
            "$OUT/logs/storage16/${name}_$label.json" "$name" "$label" | tee -a "$R"
        done
      done <<'CASES'
float TPMG_STORAGE16=
bfloat16_all TPMG_STORAGE16=bfloat16
half_all_s1 TPMG_STORAGE16=half
half_all TPMG_STORAGE16=half TPMG_STORAGE16_SCALE=256
half_iterate_only TPMG_STORAGE16=half TPMG_STORAGE16_SCALE=256 TPMG_STORAGE16_VECTORS=iterate
half_but_iterate TPMG_STORAGE16=half TPMG_STORAGE16_SCALE=256 TPMG_STORAGE16_VECTORS=residual,rhs,input
half_finest_x_float TPMG_STORAGE16=half TPMG_STORAGE16_SCALE=256 TPMG_STORAGE16_FINEST_ITERATE=float
bfloat16_finest_x_float TPMG_STORAGE16=bfloat16 TPMG_STORAGE16_FINEST_ITERATE=float
CASES
      ;;
    roofline)
      # from the smoother CSVs of $OUT (after smoother-3d-float, smoother-3d-double, smoother-2d),
      # else from the reference data
      mkdir -p "$OUT/roofline" "$OUT/smoother"
      if [ -f "$OUT/smoother/smoother3d_float.csv" ] && [ -f "$OUT/smoother/smoother3d_double.csv" ]; then
        { cat "$OUT/smoother/smoother3d_float.csv"; tail -n +2 "$OUT/smoother/smoother3d_double.csv"; } > "$OUT/smoother/smoother3d.csv"
        rm -f "$OUT/smoother/smoother3d_float.csv" "$OUT/smoother/smoother3d_double.csv"
      fi
      for d in 3d 2d; do
        csv=$OUT/smoother/smoother$d.csv
        [ -f "$csv" ] || csv=benchmarks/results/h100/smoother/smoother$d.csv
        python3 benchmarks/plot_roofline.py "$csv" -o "$OUT/roofline/roofline_$d.png"
      done
      ;;
    bp)
      mkdir -p "$OUT/bp"
      for prec in double float; do
        $BENCH bp --dim 3 --degrees 1,2,3,4,5,6,7,8 --bp 1,3,5 --precision $prec --geometry stored,on_the_fly,polynomial --deformation sine --dofs 1e7 --groups 3 --runs 5 \
          --csv "$OUT/bp/bp3d_$prec.csv" 2>&1 | tee "$OUT/bp/bp3d_$prec.txt"
      done
      ;;
    bp-vector)
      mkdir -p "$OUT/bp"
      $BENCH bp --dim 3 --degrees 1,2,3,4,5,6,7,8 --bp 2,4,6 --precision double --geometry stored,on_the_fly,polynomial --deformation sine --dofs 1e7 --groups 3 --runs 5 \
        --csv "$OUT/bp/bp3d_vector.csv" 2>&1 | tee "$OUT/bp/bp3d_vector.txt"
      ;;
    bp-cg)
      mkdir -p "$OUT/bp"
      $BENCH bp --dim 3 --degrees 1,2,3,4,5,6,7,8 --bp 1 --precision double --geometry polynomial,on_the_fly --deformation sine --cg --dofs 1e7 --groups 3 --runs 5 \
        --csv "$OUT/bp/bpcg_bp1.csv" 2>&1 | tee "$OUT/bp/bpcg.txt"
      $BENCH bp --dim 3 --degrees 1,2,3,4,5,6,7,8 --bp 3,5 --precision double --geometry on_the_fly --deformation sine --cg --dofs 1e7 --groups 3 --runs 5 \
        --csv "$OUT/bp/bpcg_bp35.csv" 2>&1 | tee -a "$OUT/bp/bpcg.txt"
      ;;
    bp-sizes)
      mkdir -p "$OUT/bp"
      $BENCH bp --dim 3 --degrees 2,4,7 --bp 3,5 --precision double --geometry both --deformation sine --dofs 1e5,3e5,1e6,3e6,1e7,3e7,1e8 --groups 3 --runs 5 \
        --csv "$OUT/bp/bpsweep.csv" 2>&1 | tee "$OUT/bp/bpsweep.txt"
      ;;
    mpi-tests)
      mkdir -p "$OUT/checks"
      (cd "$B" && OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ctest -R "^gpu[.]mpi" --output-on-failure \
        -V) > "$OUT/checks/mpi_gpu_tests.log" 2>&1
      echo "mpi gpu tests: exit $?"; grep -E "ranks:|its, histories|Passed|Failed|rank [0-9]+:" "$OUT/checks/mpi_gpu_tests.log" | head -60
      ;;
    sanitizer-mpi)
      # each rank of mpirun -np 2 (and 3) under compute-sanitizer: the halo kernels and the kernels on
      # the parts, a 3D solve with the default kernels, the separate kernel and bp5 on a sine mesh
      mkdir -p "$OUT/checks"; rm -f "$OUT/checks/sanitizer_mpi.txt"
      for ranks in 2 3; do
        for args in "" "--set Multigrid/Smoother\ kernel=separate --set Polynomial\ degree=3" \
          "--set Multigrid/Level\ operator=bp5 --set Mesh/Deformation=sine --set Polynomial\ degree=2"; do
          eval "set -- $args"
          for tool in memcheck racecheck synccheck; do
            mpirun --allow-run-as-root --oversubscribe -np $ranks compute-sanitizer --tool $tool --error-exitcode 3 \
              $SOLVER prm/default.prm --set "Mesh/Refinement level=3" --set Backend/Device=cuda --set Output/Verbose=false "$@" \
              < /dev/null > "$OUT/logs/sanitizer.tmp" 2>&1
            echo "$tool [$ranks ranks $args]: exit $?, $(grep -c -E '^========= (Invalid|Race|Barrier|Error)' "$OUT/logs/sanitizer.tmp") reports, $(grep 'ERROR SUMMARY' "$OUT/logs/sanitizer.tmp" | sort | uniq -c | tr '\n' ' ')" |
              tee -a "$OUT/checks/sanitizer_mpi.txt"
            cat "$OUT/logs/sanitizer.tmp" >> "$OUT/logs/sanitizer_mpi_full.log"
          done
        done
      done
      ;;
    sanitizer-nccl)
      # two ranks on two GPUs exchanging over NCCL, each under compute-sanitizer: the halo kernels,
      # the colour exchanges and the transport on the stream (default kernels; separate kernel).
      # memcheck also reports the CUDA API errors of NCCL's own start (ncclCommInitRank probes
      # kernels with cudaFuncGetAttributes: cudaErrorNoKernelImageForDevice, 4 per rank with
      # NCCL 2.28.3), so it runs once with them and once without (--report-api-errors no)
      mkdir -p "$OUT/checks"; rm -f "$OUT/checks/sanitizer_nccl.txt"
      for args in "" "--set Multigrid/Smoother\ kernel=separate --set Polynomial\ degree=3"; do
        eval "set -- $args"
        for tool in memcheck "memcheck --report-api-errors no" racecheck synccheck; do
          NCCL_NVLS_ENABLE=0 mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE compute-sanitizer --tool $tool --error-exitcode 3 \
            $SOLVER prm/default.prm --set "Mesh/Refinement level=3" --set Backend/Device=cuda --set Backend/Exchange=nccl \
            --set "Backend/Overlap exchanges=always" \
            --set Output/Verbose=false "$@" < /dev/null > "$OUT/logs/sanitizer.tmp" 2>&1
          echo "$tool [2 GPUs, nccl $args]: exit $?, $(grep -c -E '^========= (Invalid|Race|Barrier|Error)' "$OUT/logs/sanitizer.tmp") reports, $(grep -c '^========= Program hit' "$OUT/logs/sanitizer.tmp") API errors ($(grep -A8 '^========= Program hit' "$OUT/logs/sanitizer.tmp" | grep -c 'in libnccl') frames in libnccl), $(grep 'SUMMARY' "$OUT/logs/sanitizer.tmp" | sort | uniq -c | tr '\n' ' ')" |
            tee -a "$OUT/checks/sanitizer_nccl.txt"
          cat "$OUT/logs/sanitizer.tmp" >> "$OUT/logs/sanitizer_nccl_full.log"
        done
      done
      # the fitted smoother's additive Schwarz exchange beside the last colour (Kershaw, k = 3,
      # level 2: split on 2 ranks); the kernels that synccheck names, counted
      for tool in "memcheck --report-api-errors no" synccheck; do
        NCCL_NVLS_ENABLE=0 timeout 300 mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE compute-sanitizer --tool $tool \
          --print-limit 100000 $SOLVER prm/kershaw_bps5.prm --set "Mesh/Refinement level=2" --set "Polynomial degree=3" \
          --set Backend/Exchange=nccl --set "Backend/Overlap exchanges=always" --set Output/Verbose=false \
          < /dev/null > "$OUT/logs/sanitizer.tmp" 2>&1
        echo "$tool [2 GPUs, nccl, kershaw k = 3 level 2, overlap always]: exit $?, $(grep -c -E '^========= (Invalid|Race|Barrier|Error)' "$OUT/logs/sanitizer.tmp") reports in: $(grep -A1 -E '^========= (Invalid|Race|Barrier|Error)' "$OUT/logs/sanitizer.tmp" | grep '=========     at' | sed -E 's/^=========     at ([A-Za-z_0-9]+).*/\1/' | sort | uniq -c | tr '\n' ' ')" |
          tee -a "$OUT/checks/sanitizer_nccl.txt"
      done
      ;;
    table7-ranks)
      # 1, 2 and 4 ranks on the one GPU: the ranks' kernels share it, so this measures the cost of
      # the exchanges and of the split, not a speed-up
      mkdir -p "$OUT/table7"; rm -f "$OUT/table7/ranks.txt"
      echo "# file ranks grid iterations solve_s [3 repetitions] setup_s max_rank_dofs l2_error exchange_s exchanges finest_smoother_s" | tee "$OUT/table7/ranks.txt"
      for f in table7_k1_mixed table7_k3_mixed table7_k7_mixed; do
        for n in 1 2 4; do
          mpirun --allow-run-as-root --oversubscribe -np $n $SOLVER prm/$f.prm --set Backend/Repetitions=3 \
            --json "$OUT/logs/ranks_${f}_$n.json" > "$OUT/logs/ranks_${f}_$n.log" 2>&1
          python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], r['ranks'], r['process_grid'].replace(' ',''), r['iterations'], r['solve_time_s'], r['solve_times_s'], r['setup_time_s'], r['max_rank_dofs'], r['l2_error'], sum(l['exchange'] for l in r['levels']), sum(l['exchanges'] for l in r['levels']), r['breakdown']['finest_smoother'])" \
            "$OUT/logs/ranks_${f}_$n.json" $f | tee -a "$OUT/table7/ranks.txt"
        done
      done
      tar czf "$OUT/table7/ranks_logs.tgz" -C "$OUT/logs" $(cd "$OUT/logs" && ls ranks_*)
      ;;
    scaling)
      # one rank per GPU, NCCL exchanges unless a run says otherwise; JSON reports named
      # <case>_n<GPUs>_<label>.json, summed up by benchmarks/scaling_table.py
      mkdir -p "$OUT/scaling"; J=$OUT/logs/scaling; mkdir -p "$J"; rm -f "$J"/*.json
      k7=prm/table7_k7_mixed.prm k3=prm/table7_k3_mixed.prm
      for n in 1 2 4; do
        cells=(x "2,2,1" "2,2,2" x "4,2,2")
        scale weak_k7 $n nccl $k7 --set "Mesh/Refinement level=6" --set "Mesh/Coarse cells=${cells[$n]}"
        scale weak_k3 $n nccl $k3 --set "Mesh/Refinement level=7" --set "Mesh/Coarse cells=${cells[$n]}"
        scale strong_k7 $n nccl $k7
        scale strong_k3 $n nccl $k3
        scale mid_k3 $n nccl $k3 --set "Mesh/Refinement level=6"
        scale kershaw $n nccl prm/kershaw_bps5.prm --set "Mesh/Refinement level=3" --set Backend/Repetitions=3
        # the one-GPU answer at a tolerance where rounding no longer hides in the algebraic error
        scale tol13_k3 $n nccl $k3 --set "Mesh/Refinement level=6" --set "Solver/Relative tolerance=1e-13"
      done
      scale largest_k7 4 nccl $k7 --set "Mesh/Refinement level=6" --set "Mesh/Coarse cells=4,4,2"
      # each colour's exchange after the colour instead of beside its inner patches
      scale strong_k7 4 sequential $k7 --set "Backend/Overlap exchanges=never"
      scale weak_k7 4 sequential $k7 --set "Mesh/Refinement level=6" --set "Mesh/Coarse cells=4,2,2" \
        --set "Backend/Overlap exchanges=never"
      scale strong_k3 4 sequential $k3 --set "Backend/Overlap exchanges=never"
      # the host-staged path beside (the transport before NCCL)
      scale strong_k7 4 host $k7 --set Backend/Exchange=host
      scale weak_k7 4 host $k7 --set "Mesh/Refinement level=6" --set "Mesh/Coarse cells=4,2,2" --set Backend/Exchange=host
      scale mid_k3 4 host $k3 --set "Mesh/Refinement level=6" --set Backend/Exchange=host
      # the agglomeration floor (Backend/Minimum DoFs per rank): every level split, and coarser floors
      for m in 1 100000 1000000 4000000; do
        scale mid_k3 4 min$m $k3 --set "Mesh/Refinement level=6" --set "Backend/Minimum DoFs per rank=$m"
        scale strong_k3 4 min$m $k3 --set "Backend/Minimum DoFs per rank=$m"
        scale kershaw 4 min$m prm/kershaw_bps5.prm --set "Mesh/Refinement level=3" --set Backend/Repetitions=3 \
          --set "Backend/Minimum DoFs per rank=$m"
      done
      python3 benchmarks/scaling_table.py "$J" | tee "$OUT/scaling/scaling.txt" | (column -t 2>/dev/null || cat)
      # bad input and a failure on one rank over NCCL: the documented exit code on every rank, no hang
      {
        timeout 120 mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE $SOLVER --set "Mesh/Refinement level=1" \
          --set Backend/Exchange=nccl > "$J/bad_input.log" 2>&1; echo "bad partition, 2 GPUs, nccl: exit $? (2 expected): $(head -1 "$J/bad_input.log")"
        mkdir -p "$J/vtu/solution_1.vtu"
        timeout 120 mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE $SOLVER --set "Mesh/Refinement level=2" \
          --set "Polynomial degree=2" --set Backend/Exchange=nccl --set Output/Verbose=false \
          --set "Output/VTU file=$J/vtu/solution.vtu" > "$J/failure.log" 2>&1; echo "failure on rank 1, 2 GPUs, nccl: exit $? (1 expected): $(grep error "$J/failure.log" | head -1)"
        timeout 120 mpirun --allow-run-as-root -np 2 -x NCCL_NVLS_ENABLE $SOLVER --set Backend/Exchange=mpi \
          > "$J/bad_mpi.log" 2>&1; echo "exchange mpi without a CUDA-aware MPI: exit $? (2 expected): $(head -1 "$J/bad_mpi.log")"
      } | tee "$OUT/scaling/errors.txt"
      tar czf "$OUT/scaling/scaling_logs.tgz" -C "$OUT/logs" scaling
      ;;
    overlap)
      # Backend/Overlap exchanges = auto, never and always side by side on 4 GPUs, alternating
      mkdir -p "$OUT/scaling"; J=$OUT/logs/overlap; mkdir -p "$J"; rm -f "$J"/*.json
      k7=prm/table7_k7_mixed.prm k3=prm/table7_k3_mixed.prm
      g=${OVERLAP_GPUS:-4}
      for round in ${OVERLAP_ROUNDS:-1 2}; do
        for on in auto never always; do
          o=(--set "Backend/Overlap exchanges=$on")
          for c in ${OVERLAP_CASES:-strong_k7 strong_k3 weak_k7 weak_k3 mid_k3 kershaw}; do
            case $c in
              strong_k7) scale $c $g "${on}_$round" $k7 "${o[@]}" ;;
              strong_k3) scale $c $g "${on}_$round" $k3 "${o[@]}" ;;
              weak_k7) scale $c $g "${on}_$round" $k7 --set "Mesh/Refinement level=6" --set "Mesh/Coarse cells=4,2,2" "${o[@]}" ;;
              weak_k3) scale $c $g "${on}_$round" $k3 --set "Mesh/Refinement level=7" --set "Mesh/Coarse cells=4,2,2" "${o[@]}" ;;
              mid_k3) scale $c $g "${on}_$round" $k3 --set "Mesh/Refinement level=6" "${o[@]}" ;;
              kershaw) scale $c $g "${on}_$round" prm/kershaw_bps5.prm --set "Mesh/Refinement level=3" \
                --set Backend/Repetitions=3 "${o[@]}" ;;
              kershaw2) scale $c $g "${on}_$round" prm/kershaw_bps5.prm --set "Mesh/Refinement level=2" \
                --set Backend/Repetitions=5 "${o[@]}" ;;
              mid_k7) scale $c $g "${on}_$round" $k7 --set "Mesh/Refinement level=5" "${o[@]}" ;;
              # (whole cycles in the CUDA graph, whose levels overlap nothing under auto: auto
              # against never is the outer operator's overlap alone)
              k3_l7) scale $c $g "${on}_$round" $k3 --set "Mesh/Refinement level=7" "${o[@]}" ;;
              k7_l6) scale $c $g "${on}_$round" $k7 --set "Mesh/Refinement level=6" \
                --set "Backend/CUDA graph DoFs per rank=50000000" "${o[@]}" ;;
            esac
          done
        done
      done
      python3 benchmarks/json_table.py "$J" '(.+)_n\d+_(auto|never|always)_(\d)\.json' \
        "# case overlap round iterations solve_s finest_smoother_s coarser_levels_s vcycle_graph_s outer_matvec_s exchange_s l2_error" \
        'r["iterations"]' 'f(r["solve_time_s"], 4)' 'f(b.get("finest_smoother", 0), 4)' 'f(b.get("coarser_levels", 0), 4)' \
        'f(b.get("vcycle_graph", 0), 4)' 'f(b.get("outer_matvec", 0), 4)' 'f(sum(l["exchange"] for l in L), 4)' 'r["l2_error"]' |
        tee "$OUT/scaling/overlap.txt"
      tar czf "$OUT/scaling/overlap_logs.tgz" -C "$OUT/logs" overlap
      ;;
    overlap-compare)
      pair="old new"
      build_old_solver || pair="never auto" # no other build: the setting in this one
      mkdir -p "$OUT/scaling"; J=$OUT/logs/overlap_compare; mkdir -p "$J"; rm -f "$J"/*.json
      k7=prm/table7_k7_mixed.prm k3=prm/table7_k3_mixed.prm
      NEW_SOLVER=$SOLVER
      for round in 1 2; do
        for n in ${COMPARE_GPUS:-1 2}; do
          wcells=(x "2,2,1" "2,2,2" x "4,2,2")
          for which in $pair; do
            mode=(); SOLVER=$NEW_SOLVER
            [ $which = old ] && SOLVER=$OLD/apps/poisson_solver
            [ $which = never ] && mode=(--set "Backend/Overlap exchanges=never")
            for c in ${OVERLAP_CASES:-strong_k7 strong_k3 mid_k3 weak_k7 kershaw}; do
              case $c in
                strong_k7) scale $c $n "${which}_$round" $k7 "${mode[@]}" ;;
                strong_k3) scale $c $n "${which}_$round" $k3 "${mode[@]}" ;;
                mid_k3) scale $c $n "${which}_$round" $k3 --set "Mesh/Refinement level=6" "${mode[@]}" ;;
                weak_k7) scale $c $n "${which}_$round" $k7 --set "Mesh/Refinement level=6" --set "Mesh/Coarse cells=${wcells[$n]}" "${mode[@]}" ;;
                kershaw) scale $c $n "${which}_$round" prm/kershaw_bps5.prm --set "Mesh/Refinement level=3" --set Backend/Repetitions=3 "${mode[@]}" ;;
              esac
            done
          done
        done
      done
      SOLVER=$NEW_SOLVER
      python3 benchmarks/json_table.py "$J" '(.+)_n(\d+)_(old|new|never|auto)_(\d)\.json' \
        "# case GPUs build round iterations solve_s finest_matvec_s outer_matvec_s finest_smoother_s coarser_levels_s exchange_s l2_error" \
        'r["iterations"]' 'f(r["solve_time_s"], 4)' 'f(b.get("finest_matvec", 0), 4)' 'f(b.get("outer_matvec", 0), 4)' \
        'f(b.get("finest_smoother", 0), 4)' 'f(b.get("coarser_levels", 0), 4)' 'f(sum(l["exchange"] for l in L), 4)' \
        'r["l2_error"]' | tee "$OUT/scaling/overlap_compare.txt"
      tar czf "$OUT/scaling/overlap_compare_logs.tgz" -C "$OUT/logs" overlap_compare
      ;;
    gather-compare)
      # Backend/Gather level = fine against coarse (the default) in this build, on 1 and 2 GPUs
      # (COMPARE_GPUS), and with coarse the floors of DoFs per rank GATHER_FLOORS that keep the
      # first split level of the Table 7 files on rank 0; alternating, two rounds (GATHER_ROUNDS)
      mkdir -p "$OUT/scaling"; J=$OUT/logs/gather_compare; mkdir -p "$J"; rm -f "$J"/*.json
      k7=prm/table7_k7_mixed.prm k3=prm/table7_k3_mixed.prm
      for round in ${GATHER_ROUNDS:-1 2}; do
        for n in ${COMPARE_GPUS:-1 2}; do
          wcells=(x "2,2,1" "2,2,2" x "4,2,2")
          which_list="fine coarse"; [ "$n" = 1 ] && which_list=coarse # (one GPU gathers nothing)
          for which in $which_list; do
            g=(--set "Backend/Gather level=$which")
            scale strong_k7 $n "${which}_$round" $k7 "${g[@]}"
            scale strong_k3 $n "${which}_$round" $k3 "${g[@]}"
            scale mid_k3 $n "${which}_$round" $k3 --set "Mesh/Refinement level=6" "${g[@]}"
            scale weak_k7 $n "${which}_$round" $k7 --set "Mesh/Refinement level=6" --set "Mesh/Coarse cells=${wcells[$n]}" "${g[@]}"
            scale kershaw $n "${which}_$round" prm/kershaw_bps5.prm --set "Mesh/Refinement level=3" --set Backend/Repetitions=3 "${g[@]}"
          done
          [ "$n" = 1 ] && continue
          for m in ${GATHER_FLOORS:-4000000 8000000}; do
            f=(--set "Backend/Minimum DoFs per rank=$m")
            scale strong_k7 $n "min${m}_$round" $k7 "${f[@]}"
            scale strong_k3 $n "min${m}_$round" $k3 "${f[@]}"
          done
        done
      done
      python3 benchmarks/json_table.py "$J" '(.+)_n(\d+)_(fine|coarse|min\d+)_(\d)\.json' \
        "# case GPUs setting round iterations solve_s first_split gathered coarser_levels_s first_split_level_s exchange_s l2_error" \
        'r["iterations"]' 'f(r["solve_time_s"], 4)' 'r.get("first_distributed_level", 0)' 'r.get("gathered_level", -1)' \
        'f(b.get("coarser_levels", 0), 4)' \
        'next((f(l["total"], 4) for l in L if l["level"] == r.get("first_distributed_level", 0) and g[1] > 1), "-")' \
        'f(sum(l["exchange"] for l in L), 4)' 'r["l2_error"]' | tee "$OUT/scaling/gather_compare.txt"
      tar czf "$OUT/scaling/gather_compare_logs.tgz" -C "$OUT/logs" gather_compare
      ;;
    graph-ranks)
      mkdir -p "$OUT/scaling"; J=$OUT/logs/graph_ranks; mkdir -p "$J"; rm -f "$J"/*.json
      k7=prm/table7_k7_mixed.prm k3=prm/table7_k3_mixed.prm
      for round in ${GRAPH_ROUNDS:-1 2}; do
        for n in ${COMPARE_GPUS:-1 2}; do
          wcells=(x "2,2,1" "2,2,2" x "4,2,2")
          # (a setting auto:N sets Backend/CUDA graph DoFs per rank = N too, labelled autoN)
          for which in ${GRAPH_SETTINGS:-never auto}; do
            g=(--set "Backend/CUDA graph=${which%%:*}" --set Backend/Repetitions=5)
            [ "${which#*:}" != "$which" ] && g+=(--set "Backend/CUDA graph DoFs per rank=${which#*:}")
            lab="${which/:/}_$round"
            for c in ${GRAPH_CASES:-mid_k3 small_k3 small_k7 kershaw2}; do
              case $c in
                mid_k3) scale $c $n "$lab" $k3 --set "Mesh/Refinement level=6" "${g[@]}" ;;
                small_k3) scale $c $n "$lab" $k3 --set "Mesh/Refinement level=5" "${g[@]}" ;;
                small_k7) scale $c $n "$lab" $k7 --set "Mesh/Refinement level=4" "${g[@]}" ;;
                kershaw2) scale $c $n "$lab" prm/kershaw_bps5.prm "${g[@]}" ;;
                # (the graph of the coarser levels below CUDA graph DoFs per rank)
                strong_k7) scale $c $n "$lab" $k7 "${g[@]}" ;;
                strong_k3) scale $c $n "$lab" $k3 "${g[@]}" ;;
                weak_k7) scale $c $n "$lab" $k7 --set "Mesh/Refinement level=6" --set "Mesh/Coarse cells=${wcells[$n]}" "${g[@]}" ;;
                weak_k3) scale $c $n "$lab" $k3 --set "Mesh/Refinement level=7" --set "Mesh/Coarse cells=${wcells[$n]}" "${g[@]}" ;;
                largest_k7) [ "$n" = 4 ] && scale $c $n "$lab" $k7 --set "Mesh/Refinement level=6" --set "Mesh/Coarse cells=4,4,2" "${g[@]}" ;;
                kershaw) scale $c $n "$lab" prm/kershaw_bps5.prm --set "Mesh/Refinement level=3" "${g[@]}" ;;
              esac
            done
          done
        done
      done
      python3 benchmarks/json_table.py "$J" '(.+)_n(\d+)_(never|always|auto\d*)_(\d)\.json' \
        "# case GPUs graph round iterations solve_s cuda_graph_level coarser_levels_s finest_smoother_s exchange_path l2_error" \
        'r["iterations"]' 'f(r["solve_time_s"], 5)' 'r.get("cuda_graph_level", -1)' 'f(b.get("coarser_levels", 0), 5)' \
        'f(b.get("finest_smoother", 0), 5)' 'r.get("exchange_path", "-")' 'r["l2_error"]' | tee "$OUT/scaling/graph_ranks.txt"
      tar czf "$OUT/scaling/graph_ranks_logs.tgz" -C "$OUT/logs" graph_ranks
      ;;
    nccl-channels)
      # Backend/NCCL channels on 2 GPUs: the setup (NCCL connects each peer's channels at the first exchange) and
      # the solve, strong k = 7 (722 M DoFs) and k = 3 at 7.2 M DoFs, best of 3 solves, one GPU beside
      # (NCCL_CHANNELS, NCCL_ROUNDS)
      mkdir -p "$OUT/scaling"; J=$OUT/logs/nccl_channels; mkdir -p "$J"; rm -f "$J"/*.json
      for round in ${NCCL_ROUNDS:-1 2}; do
        for n in 1 2; do
          for ch in ${NCCL_CHANNELS:-0 4 8 16}; do
            [ "$n" = 1 ] && [ "$ch" != 0 ] && continue
            g=(--set "Backend/NCCL channels=$ch" --set Backend/Repetitions=3)
            scale k7 $n "ch${ch}_$round" prm/table7_k7_mixed.prm "${g[@]}"
            scale mid_k3 $n "ch${ch}_$round" prm/table7_k3_mixed.prm --set "Mesh/Refinement level=6" "${g[@]}"
          done
        done
      done
      python3 benchmarks/json_table.py "$J" '(.+)_n(\d+)_ch(\d+)_(\d)\.json' \
        "# case GPUs nccl_channels round iterations setup_s first_exchange_part_s process_s solve_s l2_error" \
        'r["iterations"]' 'f(r["setup_time_s"], 4)' 'f(s.get("outer_operator_and_workspace", 0), 4)' \
        'f(r["process_time_s"] or 0, 3)' 'f(r["solve_time_s"], 5)' 'r["l2_error"]' | tee "$OUT/scaling/nccl_channels.txt"
      tar czf "$OUT/scaling/nccl_channels_logs.tgz" -C "$OUT/logs" nccl_channels
      ;;
    fitted-launch)
      # the fitted additive Schwarz step's patches by colour against all in one launch (Multigrid/Fitted patch
      # launch) on Kershaw meshes, CUDA graph never (the per-level breakdown) and auto, best of 5 solves; the
      # 38 M-DoF case on 2 GPUs too (FL_GPUS, FL_ROUNDS, FL_CASES)
      mkdir -p "$OUT/solve"; J=$OUT/logs/fitted_launch; mkdir -p "$J"; rm -f "$J"/*.json
      for round in ${FL_ROUNDS:-1 2}; do
        for n in ${FL_GPUS:-1 2}; do
          for launch in by_colour all_at_once; do
            for graph in never auto; do
              g=(--set "Multigrid/Fitted patch launch=$launch" --set "Backend/CUDA graph=$graph" --set Backend/Repetitions=5)
              lab="${launch}_${graph}_$round"
              for c in ${FL_CASES:-k7_l3 k7_l2 k3_l4 k4_l3}; do
                [ "$n" = 1 ] || [ "$c" = k7_l3 ] || continue
                case $c in
                  k7_l3) scale $c $n "$lab" prm/kershaw_bps5.prm --set "Mesh/Refinement level=3" "${g[@]}" ;;
                  k7_l2) scale $c $n "$lab" prm/kershaw_bps5.prm "${g[@]}" ;;
                  k3_l4) scale $c $n "$lab" prm/kershaw_bps5.prm --set "Polynomial degree=3" --set "Mesh/Refinement level=4" "${g[@]}" ;;
                  k4_l3) scale $c $n "$lab" prm/kershaw_bps5.prm --set "Polynomial degree=4" --set "Mesh/Refinement level=3" "${g[@]}" ;;
                esac
              done
            done
          done
        done
      done
      python3 benchmarks/json_table.py "$J" '(.+)_n(\d+)_(by_colour|all_at_once)_(never|auto)_(\d)\.json' \
        "# case GPUs launch graph round iterations solve_s level_totals_s(coarsest first) coarser_levels_s finest_smoother_s l2_error smoother_configuration" \
        'r["iterations"]' 'f(r["solve_time_s"], 5)' '",".join(f(l["total"], 4) for l in L) or "-"' \
        'f(b.get("coarser_levels", 0), 5)' 'f(b.get("finest_smoother", 0), 5)' 'r["l2_error"]' \
        'json.dumps(r.get("smoother_configuration", ""))' | tee "$OUT/solve/fitted_launch.txt"
      tar czf "$OUT/solve/fitted_launch_logs.tgz" -C "$OUT/logs" fitted_launch
      ;;
    coarse-level)
      mkdir -p "$OUT/solve" "$OUT/logs/coarse_level"; C="$OUT/logs/coarse_level"
      echo "# case coarse_level round dofs iterations solve_s setup_s coarsest_level coarse_solver l2_error" |
        tee "$OUT/solve/coarse_level.txt"
      for round in 1 2; do
        while read -r name args; do
          eval "set -- $args"
          for which in mesh auto; do
            $SOLVER "$@" --set "Multigrid/Coarse level=$which" --set Output/Verbose=false \
              --json "$C/${name}_${which}_$round.json" > "$C/${name}_${which}_$round.log" 2>&1 || echo "$name $which: exit $?"
            python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(*sys.argv[2:5], r['dofs'], r['iterations'], '%.6f' % r['solve_time_s'], '%.4f' % r['setup_time_s'], r['coarsest_level'], '\"%s\"' % r['coarse_solver'], r['l2_error'])" \
              "$C/${name}_${which}_$round.json" "$name" $which $round | tee -a "$OUT/solve/coarse_level.txt"
          done
        done <<'CASES'
k3_15.6K --set Polynomial\ degree=3 --set Mesh/Refinement\ level=3 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k3_118K --set Polynomial\ degree=3 --set Mesh/Refinement\ level=4 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k3_913K --set Polynomial\ degree=3 --set Mesh/Refinement\ level=5 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k3_7.2M --set Polynomial\ degree=3 --set Mesh/Refinement\ level=6 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k3_57M --set Polynomial\ degree=3 --set Mesh/Refinement\ level=7 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k7_185K --set Polynomial\ degree=7 --set Mesh/Refinement\ level=3 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k7_1.4M --set Polynomial\ degree=7 --set Mesh/Refinement\ level=4 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k7_11.4M --set Polynomial\ degree=7 --set Mesh/Refinement\ level=5 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k1_275K --set Polynomial\ degree=1 --set Mesh/Refinement\ level=6 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k1_2.1M --set Polynomial\ degree=1 --set Mesh/Refinement\ level=7 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k1_17M --set Polynomial\ degree=1 --set Mesh/Refinement\ level=8 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k2_2.1M --set Polynomial\ degree=2 --set Mesh/Refinement\ level=6 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k5_531K --set Polynomial\ degree=5 --set Mesh/Refinement\ level=4 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
table7_k1 prm/table7_k1_mixed.prm --set Backend/Repetitions=3
table7_k3 prm/table7_k3_mixed.prm --set Backend/Repetitions=3
table7_k7 prm/table7_k7_mixed.prm --set Backend/Repetitions=3
CASES
      done
      tar czf "$OUT/solve/coarse_level_logs.tgz" -C "$OUT/logs" coarse_level
      ;;
    small-solve-variants)
      mkdir -p "$OUT/solve" "$OUT/logs/small_variants"
      V=$OUT/logs/small_variants
      variant() { # name level graph optimization patches kernel
        $SOLVER prm/table7_k3_mixed.prm --set "Mesh/Refinement level=$2" --set "Backend/CUDA graph=$3" \
          --set "Multigrid/Kernel optimization=$4" --set "Multigrid/Patches per block=$5" --set "Multigrid/Smoother kernel=$6" \
          --set Backend/Repetitions=5 --set Output/Verbose=false --json "$V/$1.json" > "$V/$1.log" 2>&1 || echo "$1: exit $?"
      }
      for round in 1 2; do
        for lvl in 3 5; do
          for graph in auto never; do
            for opt in automatic linear_indexing conflict_free reduced_residual basic tensor_core; do
              for ppb in 0 1 4; do
                [ $opt = basic ] && [ $ppb != 0 ] && continue
                variant "r${round}_L${lvl}_${graph}_${opt}_p${ppb}_fused" $lvl $graph $opt $ppb fused
              done
            done
            for kernel in separate global; do variant "r${round}_L${lvl}_${graph}_automatic_p0_$kernel" $lvl $graph automatic 0 $kernel; done
          done
        done
      done
      # one line per run: iterations, best solve, the kernels that ran, per level smoother/total and
      # the solve's breakdown (V-cycle graph, GMRES vector work, outer operator, conversions) [us]
      python3 - "$V" <<'PY' | tee "$OUT/solve/small_solve_variants.txt"
import glob, json, os, sys
for f in sorted(glob.glob(sys.argv[1] + '/*.json')):
    r = json.load(open(f))
    levels = ' '.join('L%s:%.1f/%.1f' % (l['level'], 1e6 * l['smoother'], 1e6 * l['total']) for l in r['levels'])
    b = r['breakdown']
    parts = ' '.join('%s:%.1f' % (k, 1e6 * b[k]) for k in ('vcycle_graph', 'outer_vector', 'outer_matvec', 'conversion'))
    print(os.path.basename(f)[:-5], r['iterations'], '%.1f us' % (1e6 * r['solve_time_s']), r['smoother_configuration'], '|', levels, '|', parts)
PY
      ;;
    mpi-gpu-tests)
      mkdir -p "$OUT/checks"
      (cd "$B" && NCCL_NVLS_ENABLE=0 ctest -R "gpu.mpi_solver" --output-on-failure) 2>&1 | tee "$OUT/checks/mpi_gpu_tests.log" | tail -15
      ;;
    solve-compare)
      build_old_solver || { echo "solve-compare: set BUILD_OLD to a build or SOURCE_OLD to a source tree"; exit 1; }
      mkdir -p "$OUT/solve" "$OUT/logs/solve_compare"; C="$OUT/logs/solve_compare"
      echo "# case build round dofs iterations solve_s l2_error cuda_graph" | tee "$OUT/solve/solve_compare.txt"
      for round in 1 2; do
        while read -r name args; do
          eval "set -- $args"
          for which in old new; do
            exe=$SOLVER; [ $which = old ] && exe=$OLD/apps/poisson_solver
            $exe "$@" --set Output/Verbose=false --json "$C/${name}_${which}_$round.json" > "$C/${name}_${which}_$round.log" 2>&1 ||
              echo "$name $which: exit $?"
            python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(*sys.argv[2:5], r['dofs'], r['iterations'], '%.6f' % r['solve_time_s'], r['l2_error'], r['cuda_graph'])" \
              "$C/${name}_${which}_$round.json" "$name" $which $round | tee -a "$OUT/solve/solve_compare.txt"
          done
        done <<'CASES'
k3_117K --set Polynomial\ degree=3 --set Mesh/Refinement\ level=4 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k3_912K --set Polynomial\ degree=3 --set Mesh/Refinement\ level=5 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k3_912K_never --set Polynomial\ degree=3 --set Mesh/Refinement\ level=5 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5 --set Backend/CUDA\ graph=never
k3_7.2M --set Polynomial\ degree=3 --set Mesh/Refinement\ level=6 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k7_185K --set Polynomial\ degree=7 --set Mesh/Refinement\ level=3 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k7_1.4M --set Polynomial\ degree=7 --set Mesh/Refinement\ level=4 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
k1_2.1M --set Polynomial\ degree=1 --set Mesh/Refinement\ level=7 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=5
kershaw_l2 prm/kershaw_bps5.prm --set Backend/Repetitions=3
table7_k1 prm/table7_k1_mixed.prm --set Backend/Repetitions=3
table7_k3 prm/table7_k3_mixed.prm --set Backend/Repetitions=3
table7_k7 prm/table7_k7_mixed.prm --set Backend/Repetitions=3
CASES
      done
      tar czf "$OUT/solve/solve_compare_logs.tgz" -C "$OUT/logs" solve_compare
      ;;
    table7-compare)
      # this tree's poisson_solver against another's (BUILD_OLD), alternating, best of 3 each
      build_old_solver || { echo "table7-compare: set BUILD_OLD to a build or SOURCE_OLD to a source tree"; exit 1; }
      mkdir -p "$OUT/table7"; rm -f "$OUT/table7/compare.txt"
      echo "# file build iterations solve_s [3 repetitions] l2_error" | tee "$OUT/table7/compare.txt"
      for round in 1 2; do
        for f in ${COMPARE_FILES:-table7_k1_mixed table7_k3_mixed table7_k7_mixed}; do # (COMPARE_FILES: others)
          for which in old new; do
            exe=$SOLVER; [ $which = old ] && exe=$OLD/apps/poisson_solver
            $exe prm/$f.prm --set Backend/Repetitions=3 --json "$OUT/logs/compare_${f}_$which.json" > "$OUT/logs/compare_${f}_$which.log" 2>&1
            python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], sys.argv[3], r['iterations'], r['solve_time_s'], r['solve_times_s'], r['l2_error'])" \
              "$OUT/logs/compare_${f}_$which.json" $f $which | tee -a "$OUT/table7/compare.txt"
          done
        done
      done
      tar czf "$OUT/table7/compare_logs.tgz" -C "$OUT/logs" $(cd "$OUT/logs" && ls compare_*)
      ;;
    bp-compare)
      OLD=${BUILD_OLD:-build-old}
      [ -x "$OLD/benchmarks/tpmg_bench" ] || { echo "bp-compare: no $OLD/benchmarks/tpmg_bench"; exit 1; }
      mkdir -p "$OUT/bp"; rm -f "$OUT/bp/compare.txt"
      for round in 1 2; do
        for prec in float double; do
          for which in old new; do
            exe=$BENCH; [ $which = old ] && exe=$OLD/benchmarks/tpmg_bench
            echo "# round $round $prec $which" >> "$OUT/bp/compare.txt"
            $exe bp --dim 3 --degrees 1,2,3,4,5,6,7,8 --bp 1,3,5 --precision $prec --geometry stored,on_the_fly \
              --deformation sine --dofs 1e7 --groups 3 --runs 5 >> "$OUT/bp/compare.txt" 2>&1
          done
        done
      done
      ;;
    table7)
      # prm/table7_k{1,3,7}_{mixed,double}.prm as shipped (Kernel optimization = automatic), right
      # (the files' default) and left preconditioning; the breakdown chart from the
      # right-preconditioned runs
      mkdir -p "$OUT/table7/table7"
      for f in table7_k1_mixed table7_k1_double table7_k3_mixed table7_k3_double table7_k7_mixed table7_k7_double; do
        for side in right left; do
          log=$OUT/table7/table7/${f}_$side
          $SOLVER prm/$f.prm --set "Solver/Preconditioning side=$side" \
            --json "$log.json" > "$log.log" 2>&1
          echo "$f $side: exit $? $(result_line "$log.log")"
        done
      done
      python3 benchmarks/plot_breakdown.py "$OUT"/table7/table7/table7_*_right.json -o "$OUT/table7/table7_breakdown.png" --levels
      tar czf "$OUT/table7/table7.tgz" -C "$OUT/table7" table7 && rm -rf "$OUT/table7/table7"
      ;;
    user-problem)
      # the manufactured problem written as expressions (f, and u for the errors), and the
      # polynomial one with non-zero boundary values on the unit cube, at the Table 7 sizes;
      # one line each: file, problem, setup [s], right-hand side [s], solve [s], iterations, L2 error
      mkdir -p "$OUT/solve"; rm -f "$OUT/solve/user_problem.txt"
      echo "# file problem setup_s rhs_s solve_s iterations l2_error" | tee "$OUT/solve/user_problem.txt"
      for f in table7_k1_mixed table7_k3_mixed table7_k7_mixed; do
        for problem in builtin sine polynomial; do
          case $problem in
            builtin) set -- ;;
            sine) set -- --set "Problem/Right-hand side=function" \
                    --set "Problem/Right-hand side function=3*pi^2*sin(pi*x)*sin(pi*y)*sin(pi*z)" \
                    --set "Problem/Exact solution=sin(pi*x)*sin(pi*y)*sin(pi*z)" ;;
            polynomial) set -- --set "Problem/Right-hand side=function" --set "Problem/Right-hand side function=-2 - 6*x*z" \
                    --set "Problem/Boundary values=1 + x^2 - y*z + 3*x*y^2*z" --set "Problem/Exact solution=1 + x^2 - y*z + 3*x*y^2*z" ;;
          esac
          $SOLVER prm/$f.prm "$@" --json "$OUT/logs/user_${f}_$problem.json" > "$OUT/logs/user_${f}_$problem.log" 2>&1
          python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(sys.argv[2], sys.argv[3], r['setup_time_s'], r['rhs_time_s'], r['solve_time_s'], r['iterations'], r['l2_error'])" \
            "$OUT/logs/user_${f}_$problem.json" $f $problem | tee -a "$OUT/solve/user_problem.txt"
        done
      done
      ;;
    setup)
      mkdir -p "$OUT/solve"
      echo "# file dofs iterations solve_s setup_s process_s setup_over_solve | setup_breakdown [s] | postprocess_s" | tee "$OUT/solve/setup.txt"
      for f in prm/*.prm; do
        name=$(basename "$f" .prm)
        timeout 120 $SOLVER "$f" --set Output/Verbose=false --json "$OUT/logs/setup_$name.json" > "$OUT/logs/setup_$name.log" 2>&1 ||
          { echo "$name: exit $?" | tee -a "$OUT/solve/setup.txt"; continue; }
        python3 -c "import json,sys; r=json.load(open(sys.argv[1])); b=r['setup_breakdown']
print(sys.argv[2], r['dofs'], r['iterations'], '%.4f %.4f %.3f %.2f |' % (r['solve_time_s'], r['setup_time_s'], r['process_time_s'], r['setup_time_s']/r['solve_time_s']), ' '.join('%s %.4f' % (k, v) for k, v in b.items()), '| %.4f' % r.get('postprocess_time_s', float('nan')))" \
          "$OUT/logs/setup_$name.json" "$name" | tee -a "$OUT/solve/setup.txt"
      done
      ;;
    setup-threads)
      mkdir -p "$OUT/solve"
      echo "# file threads setup_s solve_s | setup_breakdown [s]" | tee "$OUT/solve/setup_threads.txt"
      for f in reaction 3d_bp5_sine periodic_channel; do
        for t in 1 4 16; do
          OMP_NUM_THREADS=$t $SOLVER prm/$f.prm --set Output/Verbose=false --json "$OUT/logs/threads_${f}_$t.json" > /dev/null 2>&1
          python3 -c "import json,sys; r=json.load(open(sys.argv[1])); b=r['setup_breakdown']
print(sys.argv[2], 'threads', sys.argv[3], 'setup %.4f solve %.4f |' % (r['setup_time_s'], r['solve_time_s']), ' '.join('%s %.4f' % (k, v) for k, v in b.items()))" \
            "$OUT/logs/threads_${f}_$t.json" $f $t | tee -a "$OUT/solve/setup_threads.txt"
        done
      done
      ;;
    many-solves)
      mkdir -p "$OUT/solve"
      f="3*pi^2*1.5*sin(pi*x)*sin(pi*y)*sin(pi*z)"; u="1.5*sin(pi*x)*sin(pi*y)*sin(pi*z) + 0.5*x*y*z"
      $B/apps/example_many_solves 6 2>&1 | tee "$OUT/solve/many_solves.txt"
      for round in 1 2; do
        $SOLVER --set "Polynomial degree=3" --set "Mesh/Refinement level=6" --set "Mesh/Coarse cells=1" \
          --set "Problem/Right-hand side=function" --set "Problem/Right-hand side function=$f" \
          --set "Problem/Boundary values=$u" --set "Problem/Exact solution=$u" --set "Solver/Relative tolerance=1e-10" \
          --set Output/Verbose=false --json "$OUT/logs/single_solve_$round.json" > /dev/null
        python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print('poisson_solver, one solve: setup', r['setup_time_s'], 's, solve', r['solve_time_s'], 's,', r['iterations'], 'iterations, process', r['process_time_s'], 's')" \
          "$OUT/logs/single_solve_$round.json" | tee -a "$OUT/solve/many_solves.txt"
      done
      ;;
    output)
      # one line per case: nodes written, file bytes, the process's seconds without and with
      # the file (the difference: evaluating, copying and writing it), the point values
      mkdir -p "$OUT/solve"; W=${VTU_DIR:-/tmp/tpmg_vtu}; mkdir -p "$W"
      echo "# case nodes bytes process_s process_with_vtu_s point_values" | tee "$OUT/solve/vtu_output.txt"
      while read -r name file args; do
        eval "set -- $args"
        s0=$( { /usr/bin/time -f %e $SOLVER prm/$file.prm "$@" --set Output/Verbose=false > /dev/null; } 2>&1 | tail -1)
        s1=$( { /usr/bin/time -f %e $SOLVER prm/$file.prm "$@" --set Output/Verbose=false --set "Output/VTU file=$W/$name.vtu" \
          --set "Output/Point values=0.5, 0.5, 0.75; 0.9, 0.2, 0.6" --json "$OUT/logs/vtu_$name.json" > /dev/null; } 2>&1 | tail -1)
        python3 -c "import json,sys,os; r=json.load(open(sys.argv[1])); print(sys.argv[2], os.path.getsize(sys.argv[3]), sys.argv[4], sys.argv[5], [p['value'] for p in r['point_values']])" \
          "$OUT/logs/vtu_$name.json" "$name" "$W/$name.vtu" "$s0" "$s1" | tee -a "$OUT/solve/vtu_output.txt"
        head -c 400 "$W/$name.vtu" | grep -o 'NumberOfPoints="[0-9]*"' | tee -a "$OUT/solve/vtu_output.txt"
        rm -f "$W/$name.vtu"
      done <<'CASES'
k3_14M user_problem --set Polynomial\ degree=3 --set Mesh/Refinement\ level=6 --set Mesh/Coarse\ cells=2,1,1
k3_29M user_problem --set Polynomial\ degree=3 --set Mesh/Refinement\ level=6 --set Mesh/Coarse\ cells=2,2,1
k7_stride7 table7_k7_mixed --set Output/VTU\ stride=7
CASES
      ;;
    cuda-graph)
      mkdir -p "$OUT/solve" "$OUT/logs/graph"; G="$OUT/logs/graph"
      for round in 1 2; do
        while read -r name args; do
          eval "set -- $args"
          for mode in never auto always; do
            $SOLVER --set Backend/Repetitions=5 "$@" --set "Backend/CUDA graph=$mode" --set Output/Verbose=false \
              --json "$G/${name}_${mode}_$round.json" > "$G/${name}_${mode}_$round.log" 2>&1 || echo "$name $mode: exit $?"
          done
        done <<'CASES'
k1_275K --set Polynomial\ degree=1 --set Mesh/Refinement\ level=6 --set Mesh/Coarse\ cells=1
k1_2.1M --set Polynomial\ degree=1 --set Mesh/Refinement\ level=7 --set Mesh/Coarse\ cells=1
k1_17M --set Polynomial\ degree=1 --set Mesh/Refinement\ level=8 --set Mesh/Coarse\ cells=1
k3_15K --set Polynomial\ degree=3 --set Mesh/Refinement\ level=3 --set Mesh/Coarse\ cells=1
k3_117K --set Polynomial\ degree=3 --set Mesh/Refinement\ level=4 --set Mesh/Coarse\ cells=1
k3_912K --set Polynomial\ degree=3 --set Mesh/Refinement\ level=5 --set Mesh/Coarse\ cells=1
k3_7.2M --set Polynomial\ degree=3 --set Mesh/Refinement\ level=6 --set Mesh/Coarse\ cells=1
k3_57M --set Polynomial\ degree=3 --set Mesh/Refinement\ level=7 --set Mesh/Coarse\ cells=1
k3_912K_double --set Polynomial\ degree=3 --set Mesh/Refinement\ level=5 --set Mesh/Coarse\ cells=1 --set Multigrid/Precision=double
k7_185K --set Polynomial\ degree=7 --set Mesh/Refinement\ level=3 --set Mesh/Coarse\ cells=1
k7_1.4M --set Polynomial\ degree=7 --set Mesh/Refinement\ level=4 --set Mesh/Coarse\ cells=1
k7_11M --set Polynomial\ degree=7 --set Mesh/Refinement\ level=5 --set Mesh/Coarse\ cells=1
kershaw_k3_389K prm/kershaw_bps5.prm --set Polynomial\ degree=3
k3_912K_first_solve --set Polynomial\ degree=3 --set Mesh/Refinement\ level=5 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=1
k3_7.2M_first_solve --set Polynomial\ degree=3 --set Mesh/Refinement\ level=6 --set Mesh/Coarse\ cells=1 --set Backend/Repetitions=1
table7_k3 prm/table7_k3_mixed.prm
CASES
      done
      python3 - "$G" <<'PY' | tee "$OUT/solve/cuda_graph.txt"
import glob, json, os, re, sys
runs = {}
for f in glob.glob(os.path.join(sys.argv[1], "*.json")):
    name, mode, rnd = re.fullmatch(r"(.+)_(never|auto|always)_(\d)\.json", os.path.basename(f)).groups()
    r = json.load(open(f))
    e = runs.setdefault(name, {"dofs": r["dofs"], "its": {}, "best": {}, "graph": False})
    e["its"][mode] = r["iterations"]
    e["best"][mode] = min(e["best"].get(mode, 1e9), r["solve_time_s"])
    e["graph"] |= mode == "always" and r["cuda_graph"]
print("# case dofs iterations(never/auto/always) never_s auto_s always_s speedup(always) s_per_GDoF(never/always) graph_ran(always)")
for name, e in sorted(runs.items(), key=lambda kv: kv[1]["dofs"]):
    n, u, a = e["best"]["never"], e["best"]["auto"], e["best"]["always"]
    print(f"{name} {e['dofs']} {e['its']['never']}/{e['its']['auto']}/{e['its']['always']} {n:.5f} {u:.5f} {a:.5f} "
          f"{n / a:.2f} {n / e['dofs'] * 1e9:.3f}/{a / e['dofs'] * 1e9:.3f} {e['graph']}")
PY
      tar czf "$OUT/solve/cuda_graph_logs.tgz" -C "$OUT/logs" graph
      ;;
    coefficient)
      # prm/coefficient.prm under the three tools (bp3, bp5, Chebyshev-Jacobi, 2D, a layered
      # coefficient); then the solve with a against a = 1 at the same size (bp3, fitted patches
      # both, and the default a = 1 solve: cartesian with Cartesian patches), two rounds of 5
      # solves; then the iterations of contrast 10 and 1000 (smooth and layered), k = 3 and 7,
      # levels 2..4, f = 1 on the unit cube
      mkdir -p "$OUT/solve" "$OUT/checks" "$OUT/logs/coefficient"; C="$OUT/logs/coefficient"
      rm -f "$OUT/checks/sanitizer_coefficient.txt"
      while read -r args; do
        eval "set -- $args"
        sanitize "$OUT/checks/sanitizer_coefficient.txt" "${args:-default}" $SOLVER prm/coefficient.prm \
          --set "Mesh/Refinement level=2" --set Output/Verbose=false "$@"
      done <<'RUNS'

--set Multigrid/Level\ operator=bp5
--set Multigrid/Smoother=chebyshev_jacobi
--set Problem/Coefficient=x\ \<\ 1\ ?\ 100\ :\ 1 --set Polynomial\ degree=7 --set Mesh/Refinement\ level=1
--set Dimension=2 --set Mesh/Box\ lower=0,-1 --set Mesh/Box\ upper=2,1 --set Mesh/Coarse\ cells=2,2 --set Problem/Right-hand\ side=one --set Problem/Right-hand\ side\ function=0 --set Problem/Boundary\ values=0 --set Problem/Exact\ solution= --set Mesh/Refinement\ level=4
RUNS
      timed_solves prm/coefficient.prm "$OUT/solve/coefficient.txt" "$C" <<'CASES'
k3_3.6M_a --set Mesh/Refinement\ level=5
k3_3.6M_a1_bp3_fitted --set Mesh/Refinement\ level=5 --set Problem/Coefficient=1 --set Multigrid/Level\ operator=bp3 --set Multigrid/Patch\ geometry=fitted --set Problem/Exact\ solution=
k3_3.6M_a1_default --set Mesh/Refinement\ level=5 --set Problem/Coefficient=1 --set Problem/Exact\ solution=
k7_1.4M_a --set Polynomial\ degree=7 --set Mesh/Refinement\ level=4 --set Multigrid/Level\ operator=bp5
k7_1.4M_a1_bp5_fitted --set Polynomial\ degree=7 --set Mesh/Refinement\ level=4 --set Problem/Coefficient=1 --set Multigrid/Level\ operator=bp5 --set Multigrid/Patch\ geometry=fitted --set Problem/Exact\ solution=
CASES
      tar czf "$OUT/solve/coefficient_logs.tgz" -C "$OUT/logs" coefficient
      ;;
    reaction)
      # prm/reaction.prm under the three tools (bp3; bp5 with a coefficient too; 2D); then the
      # solve with c against c = 0 at the same size (bp3 / bp5 and fitted patches both), two
      # rounds of 5 solves
      mkdir -p "$OUT/solve" "$OUT/checks" "$OUT/logs/reaction"; C="$OUT/logs/reaction"
      [ "${SANITIZE:-1}" = 1 ] && rm -f "$OUT/checks/sanitizer_reaction.txt" # (SANITIZE=0: timings only)
      [ "${SANITIZE:-1}" = 1 ] && while read -r args; do
        eval "set -- $args"
        sanitize "$OUT/checks/sanitizer_reaction.txt" "${args:-default}" $SOLVER prm/reaction.prm \
          --set "Mesh/Refinement level=2" --set Output/Verbose=false "$@"
      done <<'RUNS'

--set Multigrid/Level\ operator=bp5 --set Problem/Coefficient=1+x
--set Dimension=2 --set Problem/Right-hand\ side\ function=1 --set Problem/Exact\ solution= --set Mesh/Refinement\ level=3
RUNS
      [ "${TIMINGS:-1}" = 1 ] && timed_solves prm/reaction.prm "$OUT/solve/reaction.txt" "$C" <<'CASES' # (TIMINGS=0: the tools only)
k3_7.1M_c --set Mesh/Refinement\ level=6
k3_7.1M_c0_bp3_fitted --set Mesh/Refinement\ level=6 --set Problem/Reaction\ coefficient=0 --set Multigrid/Level\ operator=bp3 --set Multigrid/Patch\ geometry=fitted --set Problem/Exact\ solution=
k7_1.4M_c_bp5 --set Polynomial\ degree=7 --set Mesh/Refinement\ level=4 --set Multigrid/Level\ operator=bp5
k7_1.4M_c0_bp5_fitted --set Polynomial\ degree=7 --set Mesh/Refinement\ level=4 --set Problem/Reaction\ coefficient=0 --set Multigrid/Level\ operator=bp5 --set Multigrid/Patch\ geometry=fitted --set Problem/Exact\ solution=
CASES
      tar czf "$OUT/solve/reaction_logs.tgz" -C "$OUT/logs" reaction
      ;;
    constant-reaction)
      mkdir -p "$OUT/solve" "$OUT/checks" "$OUT/logs/constant"; C="$OUT/logs/constant"
      [ "${SANITIZE:-1}" = 1 ] && rm -f "$OUT/checks/sanitizer_constant_reaction.txt"
      [ "${SANITIZE:-1}" = 1 ] && while read -r args; do
        eval "set -- $args"
        sanitize "$OUT/checks/sanitizer_constant_reaction.txt" "${args:-default}" $SOLVER prm/reaction.prm \
          --set "Problem/Reaction coefficient=40" --set "Problem/Right-hand side function=(3*pi^2 + 40)*sin(pi*x)*sin(pi*y)*sin(pi*z)" \
          --set "Mesh/Refinement level=2" --set Output/Verbose=false "$@"
      done <<'RUNS'

--set Multigrid/Smoother\ kernel=separate
--set Multigrid/Smoother\ kernel=global --set Multigrid/Kernel\ optimization=conflict_free
--set Multigrid/Kernel\ optimization=basic
--set Polynomial\ degree=1 --set Mesh/Refinement\ level=4
--set Dimension=2 --set Problem/Right-hand\ side\ function=40 --set Problem/Exact\ solution= --set Mesh/Refinement\ level=4
--set Multigrid/Level\ operator=bp5 --set Problem/Coefficient=2
RUNS
      [ "${TIMINGS:-1}" = 1 ] && timed_solves prm/reaction.prm "$OUT/solve/constant_reaction.txt" "$C" <<'CASES'
k3_7.1M_c1e3 --set Mesh/Refinement\ level=6 --set Problem/Reaction\ coefficient=1e3 --set Problem/Exact\ solution= --set Problem/Right-hand\ side\ function=1
k3_7.1M_c0 --set Mesh/Refinement\ level=6 --set Problem/Reaction\ coefficient=0 --set Problem/Exact\ solution= --set Problem/Right-hand\ side\ function=1
k3_7.1M_c1e3_bp3_fitted --set Mesh/Refinement\ level=6 --set Problem/Reaction\ coefficient=1e3 --set Problem/Exact\ solution= --set Problem/Right-hand\ side\ function=1 --set Multigrid/Level\ operator=bp3 --set Multigrid/Patch\ geometry=fitted
k7_1.4M_c1e3 --set Polynomial\ degree=7 --set Mesh/Refinement\ level=4 --set Problem/Reaction\ coefficient=1e3 --set Problem/Exact\ solution= --set Problem/Right-hand\ side\ function=1
k7_1.4M_c0 --set Polynomial\ degree=7 --set Mesh/Refinement\ level=4 --set Problem/Reaction\ coefficient=0 --set Problem/Exact\ solution= --set Problem/Right-hand\ side\ function=1
CASES
      [ "${TIMINGS:-1}" = 1 ] && [ -x $B/apps/example_heat_equation ] && $B/apps/example_heat_equation 6 2>&1 |
        tee "$OUT/solve/heat_equation.txt"
      tar czf "$OUT/solve/constant_reaction_logs.tgz" -C "$OUT/logs" constant
      ;;
    mapped)
      mkdir -p "$OUT/solve" "$OUT/checks" "$OUT/logs/mapped"; C="$OUT/logs/mapped"
      [ "${SANITIZE:-1}" = 1 ] && rm -f "$OUT/checks/sanitizer_mapped.txt"
      [ "${SANITIZE:-1}" = 1 ] && while read -r args; do
        eval "set -- $args"
        sanitize "$OUT/checks/sanitizer_mapped.txt" "$args" $SOLVER "$@" --set Output/Verbose=false
      done <<'RUNS'
prm/quarter_annulus.prm --set Mesh/Refinement\ level=2
prm/quarter_annulus.prm --set Mesh/Refinement\ level=2 --set Multigrid/Level\ operator=bp5 --set Problem/Coefficient=1+x*y
prm/quarter_annulus.prm --set Mesh/Refinement\ level=2 --set Mesh/Mapping=multilinear
prm/cylinder_section.prm --set Mesh/Refinement\ level=1 --set Problem/Reaction\ coefficient=1+z
RUNS
      [ "${TIMINGS:-1}" = 1 ] || { tar czf "$OUT/solve/mapped_logs.tgz" -C "$OUT/logs" mapped; continue; } # (TIMINGS=0: the tools only)
      echo "# iterations (solve s), GMRES + float V-cycle to 1e-8, f = 1, zero boundary values: k level | quarter annulus, exact cells | multilinear cells | box [1,2]x[0,1], bp3 + fitted patches | box, default solver" | tee "$OUT/solve/mapped_iterations.txt"
      for k in 3 7; do
        for level in 2 3 4; do
          line="$k $level"
          for m in exact multilinear box default; do
            case $m in
              exact|multilinear) args=(prm/quarter_annulus.prm --set "Mesh/Mapping=$m") ;;
              box) args=(prm/quarter_annulus.prm --set Mesh/Deformation=none --set "Mesh/Deformation function=" --set "Mesh/Box lower=1,0" --set "Mesh/Box upper=2,1" --set "Multigrid/Patch geometry=fitted") ;;
              default) args=(prm/quarter_annulus.prm --set Mesh/Deformation=none --set "Mesh/Deformation function=" --set "Mesh/Box lower=1,0" --set "Mesh/Box upper=2,1" --set "Multigrid/Level operator=cartesian") ;;
            esac
            its=$($SOLVER "${args[@]}" --set "Polynomial degree=$k" --set "Mesh/Refinement level=$level" \
              --set "Problem/Right-hand side=one" --set "Problem/Right-hand side function=0" --set "Problem/Exact solution=" \
              --set "Solver/Relative tolerance=1e-8" --set Backend/Repetitions=3 --set Output/Verbose=false --json "$C/its.json" > "$C/its.log" 2>&1 &&
              python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['iterations'], '(%.4f)' % r['solve_time_s'])" "$C/its.json" || echo x)
            line="$line | $its"
          done
          echo "$line" | tee -a "$OUT/solve/mapped_iterations.txt"
        done
      done
      [ "${MAPPED_SOLVES:-1}" = 1 ] && timed_solves prm/quarter_annulus.prm "$OUT/solve/mapped.txt" "$C" <<'CASES' # (MAPPED_SOLVES=0: iterations only)
k3_4.7M_exact --set Polynomial\ degree=3 --set Mesh/Refinement\ level=9
k3_4.7M_multilinear --set Polynomial\ degree=3 --set Mesh/Refinement\ level=9 --set Mesh/Mapping=multilinear
k3_4.7M_box_bp3_fitted --set Polynomial\ degree=3 --set Mesh/Refinement\ level=9 --set Mesh/Deformation=none --set Mesh/Deformation\ function= --set Mesh/Box\ lower=1,0 --set Mesh/Box\ upper=2,1 --set Multigrid/Patch\ geometry=fitted --set Problem/Exact\ solution= --set Problem/Right-hand\ side=one
CASES
      tar czf "$OUT/solve/mapped_logs.tgz" -C "$OUT/logs" mapped
      ;;
    coefficient-iterations)
      mkdir -p "$OUT/solve" "$OUT/logs/coefficient"; C="$OUT/logs/coefficient"
      echo "# iterations (solve s), GMRES + float V-cycle to 1e-8, f = 1, unit cube: k level | a = 1 default (cartesian, Cartesian patches) | bp3, fitted patches: a = 1 | smooth 10 | layered 10 | smooth 1000 | layered 1000" | tee "$OUT/solve/coefficient_iterations.txt"
      for k in 3 7; do
        for level in 2 3 4; do
          line="$k $level"
          for a in default 1 "1 + 9*(sin(pi*x)*sin(pi*y)*sin(pi*z))^2" "x < 0.5 ? 10 : 1" "1 + 999*(sin(pi*x)*sin(pi*y)*sin(pi*z))^2" "x < 0.5 ? 1000 : 1"; do
            fitted=(--set "Problem/Coefficient=$a" --set "Multigrid/Level operator=bp3" --set "Multigrid/Patch geometry=fitted")
            [ "$a" = default ] && fitted=()
            its=$($SOLVER --set "Polynomial degree=$k" --set "Mesh/Refinement level=$level" --set "Mesh/Coarse cells=1" \
              --set "Problem/Right-hand side=one" "${fitted[@]}" --set "Solver/Relative tolerance=1e-8" --set "Solver/Maximum iterations=500" \
              --set Backend/Repetitions=3 --set Output/Verbose=false --json "$C/iterations.json" > /dev/null 2>&1 &&
              python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print(r['iterations'], '(%.4f)' % r['solve_time_s'])" "$C/iterations.json" || echo x)
            line="$line | $its"
          done
          echo "$line" | tee -a "$OUT/solve/coefficient_iterations.txt"
        done
      done
      ;;
    deformed)
      mkdir -p "$OUT/solve"; rm -f "$OUT/solve/deformed_bp5_sine.txt" "$OUT/solve/kershaw.txt"
      echo "# columns: DoFs, iterations, relative residual, rate, solve [s], DoF/s, L2 error, H1 error, memory" | tee "$OUT/solve/deformed_bp5_sine.txt"
      # the setup of prm/3d_bp5_sine.prm at level 6 (17 M DoFs), stored and on-the-fly geometry
      for g in stored on_the_fly; do
        $SOLVER prm/3d_fused_float.prm --set "Polynomial degree=4" --set "Mesh/Refinement level=6" --set "Multigrid/Level operator=bp5" \
          --set Mesh/Deformation=sine --set "Mesh/Deformation amplitude=0.1" --set "Multigrid/Kernel optimization=linear_indexing" \
          --set "Multigrid/Geometric factors=$g" --set "Multigrid/Patch geometry=cartesian" --set Output/Verbose=false > "$OUT/logs/deformed_$g.log" 2>&1
        echo "sine 0.1 Q4 level 6 bp5 $g: $(result_line "$OUT/logs/deformed_$g.log")" | tee -a "$OUT/solve/deformed_bp5_sine.txt"
      done
      for eps in 1.0 0.7 0.5; do
        $SOLVER prm/3d_fused_float.prm --set "Polynomial degree=2" --set "Mesh/Coarse cells=6" --set "Mesh/Refinement level=3" --set "Multigrid/Level operator=bp3" \
          --set Mesh/Deformation=kershaw --set "Mesh/Deformation amplitude=$eps" --set "Solver/Maximum iterations=400" \
          --set "Multigrid/Patch geometry=cartesian" --set Output/Verbose=false \
          > "$OUT/logs/kershaw_$eps.log" 2>&1
        echo "kershaw eps=$eps Q2 level 3 bp3: $(result_line "$OUT/logs/kershaw_$eps.log")" | tee -a "$OUT/solve/kershaw.txt"
      done
      ;;
    kershaw)
      # k = 7 at 24^3 cells (4.8 M DoFs), 48^3 (38 M) and 96^3 (305 M: fits with GMRES restart 16), best of 3 and 2
      # solves
      mkdir -p "$OUT/solve"; K="$OUT/solve/kershaw_bps5.txt"
      echo "# columns: DoFs, iterations, relative residual, rate, solve [s], DoF/s, L2 error, H1 error, memory" | tee "$K"
      for lv in 2 3; do
        kershaw_run "$K" "eps=0.3 k=7 level $lv (best of 3)" --set "Mesh/Refinement level=$lv" --set "Backend/Repetitions=3"
      done
      kershaw_run "$K" "eps=0.3 k=7 level 4 restart 16 (best of 2)" --set "Mesh/Refinement level=4" --set "Backend/Repetitions=2" \
        --set "Solver/GMRES restart=16"
      ;;
    kershaw-levels)
      # eps = 0.3 across levels: k = 3..7 on levels 1-3 (6^3 coarse cells: 12^3, 24^3, 48^3 cells), k = 3 on level 4
      mkdir -p "$OUT/solve"; K="$OUT/solve/kershaw_levels.txt"
      echo "# columns: DoFs, iterations, relative residual, rate, solve [s], DoF/s, L2 error, H1 error, memory" | tee "$K"
      for k in 3 4 5 6 7; do for lv in 1 2 3; do
        kershaw_run "$K" "eps=0.3 k=$k level $lv" --set "Polynomial degree=$k" --set "Mesh/Refinement level=$lv"
      done; done
      kershaw_run "$K" "eps=0.3 k=3 level 4" --set "Polynomial degree=3" --set "Mesh/Refinement level=4"
      ;;
    kershaw-table)
      # the sine mesh of amplitude 0.2 (bp3, coarse cells 4) on levels 1-3; iterations for eps = 1, 0.7, 0.5, 0.3
      # and k = 1..8 at 24^3 cells
      mkdir -p "$OUT/solve"; K="$OUT/solve/kershaw_table.txt"
      echo "# columns: DoFs, iterations, relative residual, rate, solve [s], DoF/s, L2 error, H1 error, memory" | tee "$K"
      for lv in 1 2 3; do
        kershaw_run "$K" "sine 0.2 bp3 k=3 coarse 4 level $lv" --set "Polynomial degree=3" --set "Mesh/Refinement level=$lv" \
          --set "Mesh/Coarse cells=4" --set Mesh/Deformation=sine --set "Mesh/Deformation amplitude=0.2" --set "Multigrid/Level operator=bp3"
      done
      for eps in 1.0 0.7 0.5 0.3; do for k in 1 2 3 4 5 6 7 8; do
        kershaw_run "$K" "eps=$eps k=$k level 2" --set "Polynomial degree=$k" --set "Mesh/Deformation amplitude=$eps"
      done; done
      ;;
    fitted-polynomial)
      # the fitted smoother's automatic polynomial by the cells' shear (degree 4, range 15 on mildly sheared cells)
      # against the long one (16, 400) and Chebyshev-Jacobi, side by side: the sine files and the mapped domains
      mkdir -p "$OUT/solve" "$OUT/logs"
      long=(--set "Multigrid/Chebyshev degree=16" --set "Multigrid/Chebyshev smoothing range=400")
      jacobi=(--set Multigrid/Smoother=chebyshev_jacobi)
      timed_solves prm/3d_bp5_sine.prm "$OUT/solve/fitted_polynomial.txt" "$OUT/logs" <<CASES
sine_k4_L5_auto --set Mesh/Refinement\ level=5
sine_k4_L5_long --set Mesh/Refinement\ level=5 ${long[*]@Q}
sine_k4_L5_jacobi --set Mesh/Refinement\ level=5 ${jacobi[*]@Q}
sine_k4_L6_auto --set Mesh/Refinement\ level=6
sine_k4_L6_long --set Mesh/Refinement\ level=6 ${long[*]@Q}
sine_k7_L4_auto --set Mesh/Refinement\ level=4 --set Polynomial\ degree=7
sine_k7_L4_long --set Mesh/Refinement\ level=4 --set Polynomial\ degree=7 ${long[*]@Q}
sine_k7_L4_jacobi --set Mesh/Refinement\ level=4 --set Polynomial\ degree=7 ${jacobi[*]@Q}
CASES
      for f in robin_faces cylinder_section quarter_annulus; do
        sine=(); [ $f = robin_faces ] && sine=(--set Mesh/Deformation=sine --set "Multigrid/Level operator=bp3")
        L=$(($(sed -n 's/.*Refinement level *= *//p' prm/$f.prm | head -1) + 1))
        timed_solves prm/$f.prm "$OUT/solve/fitted_polynomial_$f.txt" "$OUT/logs" <<CASES
${f}_L${L}_auto --set Mesh/Refinement\ level=$L ${sine[*]@Q}
${f}_L${L}_long --set Mesh/Refinement\ level=$L ${sine[*]@Q} ${long[*]@Q}
CASES
      done
      # coefficients that vary in space: the short polynomial where their contrast within a patch is mild
      for f in coefficient reaction; do
        timed_solves prm/$f.prm "$OUT/solve/fitted_polynomial_$f.txt" "$OUT/logs" <<CASES
${f}_auto
${f}_long ${long[*]@Q}
CASES
      done
      ;;
    fitted-kernel)
      mkdir -p "$OUT/solve" "$OUT/logs"
      for c in "kershaw_k7_L3 prm/kershaw_bps5.prm Polynomial\ degree=7 Mesh/Refinement\ level=3" \
               "kershaw_k3_L4 prm/kershaw_bps5.prm Polynomial\ degree=3 Mesh/Refinement\ level=4" \
               "kershaw_k4_L3 prm/kershaw_bps5.prm Polynomial\ degree=4 Mesh/Refinement\ level=3" \
               "kershaw_k5_L3 prm/kershaw_bps5.prm Polynomial\ degree=5 Mesh/Refinement\ level=3" \
               "kershaw_k6_L3 prm/kershaw_bps5.prm Polynomial\ degree=6 Mesh/Refinement\ level=3" \
               "kershaw_k8_L3 prm/kershaw_bps5.prm Polynomial\ degree=8 Mesh/Refinement\ level=3" \
               "sine_k4_L6 prm/3d_bp5_sine.prm Polynomial\ degree=4 Mesh/Refinement\ level=6" \
               "sine_k7_L4 prm/3d_bp5_sine.prm Polynomial\ degree=7 Mesh/Refinement\ level=4"; do
        read name file a b <<< "$c" # (no -r: "\ " stays in its field, as a space)
        [[ $name =~ ^(${FITTED_CASES:-.*})$ ]] || continue # (FITTED_CASES: a regex of the cases to run)
        : > "$OUT/logs/fitted_kernel_$name.cases"
        for kern in scalar tensor_fp64 tensor_tf32; do
          echo "${name}_$kern --set ${a// /\\ } --set ${b// /\\ } --set Multigrid/Fitted\ patch\ kernel=$kern" >> "$OUT/logs/fitted_kernel_$name.cases"
        done
        timed_solves "$file" "$OUT/solve/fitted_kernel_$name.txt" "$OUT/logs" < "$OUT/logs/fitted_kernel_$name.cases"
      done
      ;;
    rhs-sizes)
      mkdir -p "$OUT/solve" "$OUT/logs"; R="$OUT/solve/rhs_by_mesh_size.txt"
      echo "# file level loading dofs rhs_s setup_s solve_s device_init_s process_s iterations" | tee "$R"
      row() {
        python3 -c "import json,sys; r=json.load(open(sys.argv[1])); b=r['setup_breakdown']
print(*sys.argv[2:], r['dofs'], '%.4f %.4f %.4f %.4f %.3f' % (b['right_hand_side'], r['setup_time_s'], r['solve_time_s'], r['device_init_s'], r['process_time_s']), r['iterations'])" "$@" | tee -a "$R"
      }
      for f in user_problem cylinder_section coefficient neumann_faces; do
        for L in 1 2 3 4 5; do
          $SOLVER prm/$f.prm --set "Mesh/Refinement level=$L" --set Output/Verbose=false \
            --json "$OUT/logs/rhs_${f}_$L.json" > "$OUT/logs/rhs_${f}_$L.log" 2>&1 && row "$OUT/logs/rhs_${f}_$L.json" $f $L LAZY
        done
      done
      for f in user_problem cylinder_section kershaw_bps5 default; do
        for mode in LAZY EAGER LAZY EAGER; do
          CUDA_MODULE_LOADING=$mode $SOLVER prm/$f.prm --set Output/Verbose=false --json "$OUT/logs/load_$f.json" \
            > "$OUT/logs/load_$f.log" 2>&1 && row "$OUT/logs/load_$f.json" $f file $mode
        done
      done
      ;;
    kershaw-scan)
      # the fitted smoother's Chebyshev degree and range (the automatic choice: 16, 400) at eps = 0.3: k = 3 on
      # levels 1-4 and k = 7 on levels 1-3 (single solves; about 9 minutes with the build)
      mkdir -p "$OUT/solve"; K="$OUT/solve/kershaw_scan.txt"
      echo "# columns: DoFs, iterations, relative residual, rate, solve [s], DoF/s, L2 error, H1 error, memory" | tee "$K"
      for dr in "8 100" "14 300" "14 400" "16 300" "16 400" "16 1000"; do set -- $dr
        for kl in "3 1" "3 2" "3 3" "3 4" "7 1" "7 2" "7 3"; do set -- $1 $2 $kl
          kershaw_run "$K" "k=$3 L$4 deg $1 range $2" --set "Polynomial degree=$3" --set "Mesh/Refinement level=$4" \
            --set "Multigrid/Chebyshev degree=$1" --set "Multigrid/Chebyshev smoothing range=$2"
        done
      done
      ;;
    grid-sync-probe)
      mkdir -p "$OUT/solve"
      cmake --build "$B" --target grid_sync_probe > "$OUT/logs/build_grid_sync_probe.log" 2>&1 ||
        { tail -20 "$OUT/logs/build_grid_sync_probe.log"; exit 1; }
      $B/tools/grid_sync_probe | tee "$OUT/solve/grid_sync_probe.txt"
      ;;
    dense-coarse-probe)
      mkdir -p "$OUT/solve"
      cmake --build "$B" --target dense_coarse_probe > "$OUT/logs/build_dense_coarse_probe.log" 2>&1 ||
        { tail -20 "$OUT/logs/build_dense_coarse_probe.log"; exit 1; }
      $B/tools/dense_coarse_probe | tee "$OUT/solve/dense_coarse_probe.txt"
      ;;
    bank-probe)
      mkdir -p "$OUT/hardware"
      ncu --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,smsp__inst_executed_op_shared_ld.sum $B/tools/bank_probe 2>&1 |
        tee "$OUT/hardware/bank_probe.txt"
      ;;
    profile-smoother)
      # sections, stall reasons, pipes, shared wavefronts, L2 sectors and DRAM bytes of one colour
      M=smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_not_selected_per_warp_active.pct
      M=$M,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_fp64.sum
      M=$M,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_red.sum,sm__warps_active.avg.pct_of_peak_sustained_active
      mkdir -p "$OUT/profile"
      for c in 4:float 7:float 6:double 7:double; do
        k=${c%:*} prec=${c#*:}
        $NCU --kernel-name regex:FiberPatchKernel --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats \
          --section ComputeWorkloadAnalysis --metrics $M $BENCH $(smoother_case $k $prec) > "$OUT/profile/ncu_k${k}_$prec.txt" 2>&1
      done
      grep -H -E "Duration|Achieved Occupancy|Registers Per Thread|Issue Slots Busy|Block Limit (Registers|Shared)|stalled|pipe_|bank_conflicts|wavefronts_mem_shared|inst_executed|dram__bytes|lts__t_" \
        "$OUT"/profile/ncu_k*.txt | sed 's|.*/ncu_||'
      ;;
    profile-source)
      # the SASS with executed instructions and warp-stall samples per instruction (CSV, gzipped):
      #   tools/sass_stalls.py gpu-out/profile/src_k7_float.csv.gz
      mkdir -p "$OUT/profile"
      for c in 5:float 7:float 6:double; do
        k=${c%:*} prec=${c#*:}; rep=$OUT/profile/src_k${k}_$prec
        $NCU --kernel-name regex:FiberPatchKernel --section SourceCounters --section WarpStateStats -f -o "$rep" \
          $BENCH $(smoother_case $k $prec) > "$OUT/logs/src_k${k}_$prec.log" 2>&1
        ncu -i "$rep.ncu-rep" --page source --csv --print-source sass > "$rep.csv" 2>> "$OUT/logs/src_k${k}_$prec.log" || tail -5 "$OUT/logs/src_k${k}_$prec.log"
        gzip -f "$rep.csv"; rm -f "$rep.ncu-rep"
      done
      ls -la "$OUT"/profile/src_*.csv.gz
      ;;
    *)
      echo "unknown stage '$stage' (run without arguments for the list)" >&2
      exit 2
      ;;
  esac
done
