#!/usr/bin/env bash
# Everything that needs the GPU, in stages that each fit one device call (10 min):
#   benchmarks/gpu_session.sh build       configure + build (16 cores) into build-gpu/
#   benchmarks/gpu_session.sh test        GPU tests, compute-sanitizer memcheck/racecheck/synccheck
#   benchmarks/gpu_session.sh operator    level operator throughput (3D k = 2,4,7, >= 50 M DoFs)
#   benchmarks/gpu_session.sh smoother    one smoothing step per variant and degree
#   benchmarks/gpu_session.sh table7      the paper's Table 7 solves
#   (more stages below: threads, smootherk1, operatork1, smootherhigh, bp, bpregs,
#    bpfiber, bpsan, bpsweep, bpfly, profile, table7best, abbuild/abrun, ...)
# Logs and CSV/JSON go to $OUT (or ./gpu-out).
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-$PWD/gpu-out}
mkdir -p "$OUT"
B=build-gpu
# A/B table of two BP benchmark CSVs $OUT/<prefix>_<a>.csv and _<b>.csv: GDoF/s a/b, k = 1..8
ab_table() {
  python3 - "$OUT" "$@" <<'PY'
import csv, sys
def load(f):
    return {(r['kernel'], r['optimization'], r['precision'], int(r['degree'])): float(r['dofs_per_second']) / 1e9
            for r in csv.DictReader(open(f))}
out, prefix = sys.argv[1], sys.argv[2]
a, b = (load('%s/%s_%s.csv' % (out, prefix, v)) for v in sys.argv[3:5])
for key in sorted({k[:3] for k in a}):
    print(' '.join(key), ' '.join('%5.1f/%5.1f' % (a.get(key + (k,), 0), b.get(key + (k,), 0)) for k in range(1, 9)))
PY
}
for stage in "$@"; do
  case "$stage" in
    build)
      nvidia-smi --query-gpu=name,memory.total,memory.used,clocks.sm,clocks.max.sm --format=csv | tee "$OUT/nvidia-smi.txt"
      cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > "$OUT/configure.log" 2>&1 || { tail -30 "$OUT/configure.log"; exit 1; }
      /usr/bin/time -f "build: %e s" cmake --build $B -j 16 --target poisson_solver gpu_tests tpmg_bench > "$OUT/build.log" 2>&1 || { grep -E "error" "$OUT/build.log" | head -30; exit 1; }
      tail -1 "$OUT/build.log"
      ;;
    gputests)
      $B/tests/gpu_tests 2>&1 | tee "$OUT/gpu_tests.log" | grep -E "^\[  (FAILED|PASSED|  OK) |Failure|device:|exception" | head -40
      ;;
    test)
      $B/tests/gpu_tests 2>&1 | tee "$OUT/gpu_tests.log" | grep -E "^\[  (FAILED|PASSED|  OK) |Failure|device:" | head -40
      for tool in memcheck racecheck synccheck; do
        for args in "prm/2d_fused_float.prm --set Mesh/Refinement\ level=4" \
                    "prm/3d_fused_double.prm --set Mesh/Refinement\ level=2" \
                    "prm/3d_separate_float.prm --set Mesh/Refinement\ level=2" \
                    "prm/3d_global_float.prm --set Mesh/Refinement\ level=2 --set Solver/Type=fmg" \
                    "prm/chebyshev_3d.prm --set Mesh/Refinement\ level=2 --set Mesh/Coarse\ cells=2" \
                    "prm/3d_fused_float.prm --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=conflict_free" \
                    "prm/3d_separate_double.prm --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=boundary" \
                    "prm/2d_fused_float.prm --set Mesh/Refinement\ level=4 --set Multigrid/Kernel\ optimization=boundary" \
                    "prm/3d_global_float.prm --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=linear_indexing" \
                    "prm/3d_fused_float.prm --set Polynomial\ degree=1 --set Mesh/Refinement\ level=4 --set Multigrid/Kernel\ optimization=linear_indexing" \
                    "prm/3d_fused_double.prm --set Polynomial\ degree=8 --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=linear_indexing" \
                    "prm/3d_separate_float.prm --set Polynomial\ degree=6 --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=linear_indexing" \
                    "prm/2d_fused_double.prm --set Polynomial\ degree=1 --set Mesh/Refinement\ level=6 --set Multigrid/Kernel\ optimization=boundary" \
                    "prm/3d_fused_float.prm --set Mesh/Refinement\ level=2 --set Multigrid/Level\ operator=bp5 --set Mesh/Deformation=sine --set Mesh/Deformation\ amplitude=0.1 --set Multigrid/Geometric\ factors=on_the_fly" \
                    "prm/3d_fused_double.prm --set Polynomial\ degree=2 --set Mesh/Coarse\ cells=6 --set Mesh/Refinement\ level=1 --set Multigrid/Level\ operator=bp3 --set Mesh/Deformation=kershaw --set Mesh/Deformation\ amplitude=0.7" \
                    "prm/3d_fused_double.prm --set Polynomial\ degree=7 --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=tensor_core" \
                    "prm/3d_fused_float.prm --set Polynomial\ degree=4 --set Mesh/Refinement\ level=2 --set Multigrid/Kernel\ optimization=tensor_core"; do
          eval "compute-sanitizer --tool $tool --error-exitcode 3 $B/apps/poisson_solver $args --set Output/Verbose=false" \
            > "$OUT/sanitizer.log.tmp" 2>&1
          rc=$?
          echo "$tool [$args]: exit $rc, $(grep -c -E '^========= (Invalid|Race|Barrier|Error)' "$OUT/sanitizer.log.tmp") reports, $(grep 'ERROR SUMMARY' "$OUT/sanitizer.log.tmp" | tail -1)" | tee -a "$OUT/sanitizer.txt"
          cat "$OUT/sanitizer.log.tmp" >> "$OUT/sanitizer_full.log"
        done
      done
      rm -f "$OUT/sanitizer.log.tmp"
      ;;
    operator)
      $B/benchmarks/tpmg_bench operator --dim 3 --degrees 1,2,3,4,5,6,7,8 --precision both --dofs 5e7 --csv "$OUT/operator.csv" 2>&1 | tee "$OUT/operator.txt"
      ;;
    smoother3d)
      $B/benchmarks/tpmg_bench smoother --dim 3 --degrees 1,2,3,4,5,6,7,8 --precision both --kernel all --optimization all --dofs 5e7 --groups 3 --runs 3 --csv "$OUT/smoother3d.csv" 2>&1 | tee "$OUT/smoother3d.txt"
      ;;
    smoother2d)
      $B/benchmarks/tpmg_bench smoother --dim 2 --degrees 1,2,3,4,5,6,7,8,9,10 --precision both --kernel all --optimization all --dofs 3e7 --groups 3 --runs 5 --csv "$OUT/smoother2d.csv" 2>&1 | tee "$OUT/smoother2d.txt"
      ;;
    bp)
      # BP1, BP3, BP5, stored and on-the-fly geometry (BP1 also polynomial), float and double,
      # ~10 M DoFs (sine-deformed mesh); the vector versions in `bpvector`
      $B/benchmarks/tpmg_bench bp --dim 3 --degrees 1,2,3,4,5,6,7,8 --bp 1,3,5 --precision both --geometry stored,onthefly,polynomial --deformation sine --dofs 1e7 --groups 3 --runs 5 --csv "$OUT/bp3d.csv" 2>&1 | tee "$OUT/bp3d.txt"
      ;;
    bpvector)
      $B/benchmarks/tpmg_bench bp --dim 3 --degrees 1,2,3,4,5,6,7,8 --bp 2,4,6 --precision both --geometry stored,onthefly,polynomial --deformation sine --dofs 1e7 --groups 3 --runs 5 --csv "$OUT/bp3d_vector.csv" 2>&1 | tee "$OUT/bp3d_vector.txt"
      ;;
    bpregs)
      # A/B in one run: 3D BP kernels with registers capped at ${BP_REGS:-128} (launch bounds,
      # build knob TPMG_BP_REGS) against uncapped; the capped build is a second build directory
      cmake -S . -B build-regs -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DTPMG_BP_REGS=${BP_REGS:-128} > /dev/null 2>&1
      cmake --build build-regs -j 16 --target tpmg_bench > "$OUT/build_regs.log" 2>&1 || { grep error "$OUT/build_regs.log" | head; exit 1; }
      for variant in uncapped capped; do
        bench=$B/benchmarks/tpmg_bench
        [ $variant = capped ] && bench=build-regs/benchmarks/tpmg_bench
        $bench bp --dim 3 --degrees ${BP_DEGREES:-1,2,3,4,5,6,7,8} --bp 1,3,5 --precision double --geometry both --deformation sine --dofs 1e7 --groups 3 --runs 5 --csv "$OUT/bpregs_$variant.csv" > "$OUT/bpregs_$variant.txt" 2>&1
      done
      ab_table bpregs uncapped capped
      ;;
    abbuild|abrun|bpab)
      # A/B in one session: the main build against variants, AB_VARIANTS = space-separated
      #   name:FLAGS  this tree with extra flags (commas for spaces), host and device compilers
      #               alike (a knob that changes a launch shape must agree on both sides)
      #   name=TAR    the tree of a `git archive` TAR carried as an untracked file (another
      #               commit: the device's clone may lack it)
      #   name@FILE   this tree with FILE, or a COMMIT's version, as kernels/bp_operator.h
      # abbuild builds the variants' tpmg_bench; abrun runs AB_BENCH (tpmg_bench arguments, no
      # --csv) on the main build and each variant and prints one GDoF/s table per variant
      # (CSVs ab_<name>.csv); bpab does both with the BP benchmark (double, sine mesh, 1e7 DoFs,
      # BP_DEGREES, BP_KINDS default 1,3,5, BP_GEOMETRY default both)
      [ $stage = bpab ] && AB_BENCH=${AB_BENCH:-"bp --dim 3 --degrees ${BP_DEGREES:-1,2,3,4,5,6,7,8} --bp ${BP_KINDS:-1,3,5} --precision double --geometry ${BP_GEOMETRY:-both} --deformation sine --dofs 1e7 --groups 3 --runs 5"}
      names=
      for v in ${AB_VARIANTS:?}; do
        name=${v%%[:=@]*}; names="$names $name"
        [ $stage = abrun ] && continue
        what=${v#"$name"?}; flags=; src=.
        case ${v:${#name}:1} in
          :) flags=$what ;;
          =) src=/tmp/ab-$name; rm -rf $src && mkdir -p $src && tar xzf "$what" -C $src || exit 1 ;;
          @) src=/tmp/ab-$name; rm -rf $src && mkdir -p $src
             # the files that travel with the working tree: tracked and untracked-not-ignored
             # (the device's clone may not know the newest tracked ones)
             { git ls-files -z; git ls-files -z --others --exclude-standard; } | xargs -0 cp --parents -t $src
             if [ -f "$what" ]; then cp "$what" $src/kernels/bp_operator.h
             else git show "$what":kernels/bp_operator.h > $src/kernels/bp_operator.h || exit 1; fi ;;
          *) echo "AB_VARIANTS: '$v' is not name:FLAGS, name=TAR or name@FILE" >&2; exit 2 ;;
        esac
        cmake -S $src -B build-ab-$name -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 "-DCMAKE_CUDA_FLAGS=${flags//,/ }" "-DCMAKE_CXX_FLAGS=${flags//,/ }" > /dev/null 2>&1
        /usr/bin/time -f "build $name: %e s" cmake --build build-ab-$name -j 16 --target tpmg_bench > "$OUT/build_ab_$name.log" 2>&1 || { grep error "$OUT/build_ab_$name.log" | head; exit 1; }
        tail -1 "$OUT/build_ab_$name.log"
      done
      [ $stage = abbuild ] && continue
      for name in base $names; do
        bench=build-ab-$name/benchmarks/tpmg_bench
        [ $name = base ] && bench=$B/benchmarks/tpmg_bench
        $bench ${AB_BENCH:?} --csv "$OUT/ab_$name.csv" > "$OUT/ab_$name.txt" 2>&1 || { tail -3 "$OUT/ab_$name.txt"; exit 1; }
      done
      for name in $names; do echo "base / $name"; ab_table ab base $name; done
      ;;
    bpsan)
      # compute-sanitizer on the BP kernels of the padded layouts (double nq = 5, 8, 10) and
      # unpadded neighbours, all geometries (polynomial: BP1), small sizes; BP_SAN_DEGREES
      for tool in memcheck racecheck synccheck; do
        compute-sanitizer --tool $tool --error-exitcode 3 $B/benchmarks/tpmg_bench bp --dim 3 --degrees ${BP_SAN_DEGREES:-3,4,6,7,8} --bp 1,3,5 --precision both --geometry stored,onthefly,polynomial --deformation sine --dofs 1e5 --groups 1 --runs 1 > "$OUT/san.tmp" 2>&1
        echo "$tool [tpmg_bench bp k = ${BP_SAN_DEGREES:-3,4,6,7,8}, BP1/3/5, float+double, stored+onthefly+polynomial]: exit $?, $(grep -c -E '^========= (Invalid|Race|Barrier|Error)' "$OUT/san.tmp") reports, $(grep -c FAILED "$OUT/san.tmp") failed, $(grep 'ERROR SUMMARY' "$OUT/san.tmp" | tail -1)" | tee -a "$OUT/sanitizer_bp.txt"
      done
      rm -f "$OUT/san.tmp"
      ;;
    bpfiber)
      # A/B in one run: the 3D fiber BP kernels against the point-wise kernels of commit f469050
      # (its kernels/bp_operator.h and src/bp_operator_impl.h, from git), double, both geometries
      rm -rf /tmp/old && mkdir -p /tmp/old && git ls-files -z | xargs -0 cp --parents -t /tmp/old
      git show f469050:kernels/bp_operator.h > /tmp/old/kernels/bp_operator.h && git show f469050:src/bp_operator_impl.h > /tmp/old/src/bp_operator_impl.h || { echo "commit f469050 not in this clone"; exit 1; }
      cmake -S /tmp/old -B /tmp/old/build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 > /dev/null 2>&1
      cmake --build /tmp/old/build -j 16 --target tpmg_bench > "$OUT/build_old.log" 2>&1 || { grep error "$OUT/build_old.log" | head; exit 1; }
      for variant in fiber point; do
        bench=$B/benchmarks/tpmg_bench
        [ $variant = point ] && bench=/tmp/old/build/benchmarks/tpmg_bench
        $bench bp --dim 3 --degrees 1,2,3,4,5,6,7,8 --bp 1,3,5 --precision double --geometry both --deformation sine --dofs 1e7 --groups 3 --runs 5 --csv "$OUT/bpfiber_$variant.csv" > "$OUT/bpfiber_$variant.txt" 2>&1
      done
      ab_table bpfiber fiber point
      ;;
    bpsweep)
      # throughput against size (BP3, BP5, double, both geometries), and the CEED CG-loop metric
      $B/benchmarks/tpmg_bench bp --dim 3 --degrees 2,4,7 --bp 3,5 --precision double --geometry both --deformation sine --dofs 1e5,3e5,1e6,3e6,1e7,3e7,1e8 --groups 3 --runs 5 --csv "$OUT/bpsweep.csv" 2>&1 | tee "$OUT/bpsweep.txt"
      $B/benchmarks/tpmg_bench bp --dim 3 --degrees 1,2,3,4,5,6,7,8 --bp 1,3,5 --precision double --geometry onthefly --deformation sine --cg --dofs 1e7 --groups 3 --runs 5 --csv "$OUT/bpcg.csv" 2>&1 | tee "$OUT/bpcg.txt"
      ;;
    threads)
      # basic kernels: one thread per column against one thread per DoF (the paper's Fig. 5), fused
      $B/benchmarks/tpmg_bench smoother --dim 3 --degrees 1,2,3,4,5,6,7,8 --precision both --kernel fused --optimization basic_column,basic_dof --dofs 5e7 --groups 3 --runs 3 --csv "$OUT/threads3d.csv" 2>&1 | tee "$OUT/threads3d.txt"
      $B/benchmarks/tpmg_bench smoother --dim 2 --degrees 1,2,3,4,5,6,7,8,9,10 --precision both --kernel fused --optimization basic_column,basic_dof --dofs 3e7 --groups 3 --runs 5 --csv "$OUT/threads2d.csv" 2>&1 | tee "$OUT/threads2d.txt"
      for args in "prm/3d_fused_float.prm --set Mesh/Refinement\ level=2 --set Multigrid/Thread\ structure=dof" \
                  "prm/3d_separate_double.prm --set Polynomial\ degree=5 --set Mesh/Refinement\ level=2 --set Multigrid/Thread\ structure=dof" \
                  "prm/2d_fused_float.prm --set Mesh/Refinement\ level=4 --set Multigrid/Thread\ structure=column"; do
        for tool in memcheck racecheck synccheck; do
          eval "compute-sanitizer --tool $tool --error-exitcode 3 $B/apps/poisson_solver $args --set Output/Verbose=false" > "$OUT/san.tmp" 2>&1
          echo "$tool [$args]: exit $?, $(grep -c -E '^========= (Invalid|Race|Barrier|Error)' "$OUT/san.tmp") reports, $(grep 'ERROR SUMMARY' "$OUT/san.tmp" | tail -1)" | tee -a "$OUT/sanitizer_threads.txt"
        done
      done
      rm -f "$OUT/san.tmp"
      ;;
    smootherk1)
      # k = 1: the tile kernel (fused, optimized) against basic and global
      $B/benchmarks/tpmg_bench smoother --dim 3 --degrees 1 --precision both --kernel all --optimization all --dofs 1.35e8 --groups 3 --runs 3 --csv "$OUT/smootherk1_3d.csv" 2>&1 | tee "$OUT/smootherk1_3d.txt"
      $B/benchmarks/tpmg_bench smoother --dim 2 --degrees 1 --precision both --kernel fused --optimization all --dofs 6.7e7 --groups 3 --runs 3 --csv "$OUT/smootherk1_2d.csv" 2>&1 | tee "$OUT/smootherk1_2d.txt"
      ;;
    operatork1)
      # k = 1: the stencil operator (laplace_stencil.h)
      $B/benchmarks/tpmg_bench operator --dim 3 --degrees 1 --precision both --dofs 1.35e8 --csv "$OUT/operatork1_3d.csv" 2>&1 | tee "$OUT/operatork1_3d.txt"
      $B/benchmarks/tpmg_bench operator --dim 2 --degrees 1 --precision both --dofs 6.7e7 --csv "$OUT/operatork1_2d.csv" 2>&1 | tee "$OUT/operatork1_2d.txt"
      ;;
    smootherhigh)
      # 3D k = 6..8: global basic against the fused fiber kernels with 1 and 2 patches per block
      $B/benchmarks/tpmg_bench smoother --dim 3 --degrees 6,7,8 --precision both --kernel global --optimization basic --dofs 5e7 --groups 3 --runs 3 --csv "$OUT/smootherhigh_global.csv" 2>&1 | tee "$OUT/smootherhigh.txt"
      for P in 1 2; do
        $B/benchmarks/tpmg_bench smoother --dim 3 --degrees 6,7,8 --precision both --kernel fused --optimization all --patches-per-block $P --dofs 5e7 --groups 3 --runs 3 --csv "$OUT/smootherhigh_P$P.csv" 2>&1 | grep -v " basic " | sed "s/\$/  P=$P/" | tee -a "$OUT/smootherhigh.txt"
      done
      ;;
    smootherP)
      # fused fiber kernels with 1, 2, 4, 8 patches per block (what `automatic` picks is in
      # FiberPatchKernel::automatic_patches_per_block); too many for a degree is refused
      # (SMP_DIM=2 SMP_DEGREES="7 8 9 10" SMP_P="1 2 4 8 16" for 2D; CSVs in smootherP.tgz)
      dofs=5e7; [ "${SMP_DIM:-3}" = 2 ] && dofs=3e7
      for P in ${SMP_P:-1 2 4 8}; do
        for k in ${SMP_DEGREES:-2 3 4 5 6 7 8}; do
          $B/benchmarks/tpmg_bench smoother --dim ${SMP_DIM:-3} --degrees $k --precision both --kernel fused --optimization linear_indexing,conflict_free,boundary --patches-per-block $P --dofs $dofs --groups 3 --runs 3 --csv "$OUT/smootherP${P}_k$k.csv" 2>&1 | grep -E "GDoF|rror" | sed "s/\$/  P=$P/" | tee -a "$OUT/smootherP.txt"
        done
      done
      (cd "$OUT" && tar czf smootherP.tgz smootherP*_k*.csv && rm -f smootherP*_k*.csv)
      ;;
    bpfly)
      # on-the-fly geometry, float and double, BP1/3/5; deformed-mesh solves with bp5 level operators
      $B/benchmarks/tpmg_bench bp --dim 3 --degrees 1,2,3,4,5,6,7,8 --bp 1,3,5 --precision both --geometry onthefly --deformation sine --dofs 1e7 --groups 3 --runs 5 --csv "$OUT/bpfly.csv" 2>&1 | tee "$OUT/bpfly.txt"
      for g in stored on_the_fly; do
        $B/apps/poisson_solver prm/3d_fused_float.prm --set Polynomial\ degree=4 --set Mesh/Refinement\ level=6 --set Multigrid/Level\ operator=bp5 --set Mesh/Deformation=sine --set Mesh/Deformation\ amplitude=0.1 --set Multigrid/Kernel\ optimization=linear_indexing --set Multigrid/Geometric\ factors=$g --set Output/Verbose=false 2>&1 | grep -A1 "^DoFs" | tail -1 | sed "s/^/sine 0.1 Q4 level 6 bp5 $g: /" | tee -a "$OUT/bpfly.txt"
      done
      ;;
    profile)
      # Nsight Compute on one launch of the kernels whose limits NOTES discusses (clocks untouched);
      # the kernels are all phased_kernel<...>, so match on the demangled name. Sections first,
      # then stall reasons and shared-memory wavefronts as raw metrics (appended to the same file)
      NCU="ncu --clock-control none --kernel-name-base demangled --launch-skip 3 --launch-count 1"
      SECTIONS="--section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats --section MemoryWorkloadAnalysis --section SchedulerStats"
      METRICS="--metrics smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_not_selected_per_warp_active.pct,smsp__warp_issue_stalled_selected_per_warp_active.pct,smsp__warp_issue_stalled_dispatch_stall_per_warp_active.pct,smsp__warp_issue_stalled_no_instruction_per_warp_active.pct,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_op_shared_ld.sum"
      profile_one() { # name regex, output, benchmark arguments
        local name=$1 out=$2; shift 2
        $NCU $SECTIONS --kernel-name "regex:$name" $B/benchmarks/tpmg_bench "$@" --groups 1 --runs 1 > "$OUT/$out" 2>&1
        $NCU $METRICS --kernel-name "regex:$name" $B/benchmarks/tpmg_bench "$@" --groups 1 --runs 1 >> "$OUT/$out" 2>&1
      }
      # BP cases from BP_PROFILE ("bp:k:geometry ...", double, sine mesh, 1e7 DoFs)
      for case in ${BP_PROFILE:-5:7:onthefly 3:4:onthefly}; do
        IFS=: read -r bp k geo <<< "$case"
        profile_one BPOperatorKernel ncu_bp${bp}_k${k}_$geo.txt bp --dim 3 --degrees $k --bp $bp --precision double --geometry $geo --deformation sine --dofs 1e7
      done
      [ -n "${BP_PROFILE:-}" ] && { grep -H -E "Duration|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per Thread|Issue Slots Busy|Block Limit|stalled_(barrier|long|short|mio|wait|math|not_sel)|inst_executed.sum" "$OUT"/ncu_bp*.txt; continue; }
      profile_one FiberPatchKernel ncu_smoother_k7_float.txt smoother --dim 3 --degrees 7 --precision float --kernel fused --optimization linear_indexing --dofs 5e7
      profile_one FiberPatchKernel ncu_smoother_k4_float.txt smoother --dim 3 --degrees 4 --precision float --kernel fused --optimization conflict_free --dofs 5e7
      grep -h -E "^  [a-zA-Z_]+.*\(|Duration|DRAM Throughput|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per Thread|Warp Cycles Per Issued|Issue Slots Busy|stalled|bank_conflicts|wavefronts_mem_shared|inst_executed" "$OUT"/ncu_*.txt | head -150
      ;;
    profilesmoother)
      # Nsight Compute on the fused smoother (SMOOTHER_OPT, default linear_indexing; tensor_core
      # profiles MmaPatchKernel), one launch each of SMOOTHER_PROFILE ("k:precision ...", 3D,
      # 5e7 DoFs): sections, stall reasons, pipe use, shared-memory wavefronts, global sectors per
      # request and DRAM / L2 bytes in one pass per case (clocks untouched); SMOOTHER_BUILD names
      # another build (e.g. build-ab-skel of abbuild), whose name tags the output files
      M=smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_mio_throttle_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_not_selected_per_warp_active.pct,smsp__warp_issue_stalled_selected_per_warp_active.pct,smsp__warp_issue_stalled_lg_throttle_per_warp_active.pct,smsp__warp_issue_stalled_membar_per_warp_active.pct
      M=$M,sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active,sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_lsu.avg.pct_of_peak_sustained_active,l1tex__data_pipe_lsu_wavefronts_mem_shared.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared.sum,smsp__inst_executed.sum,smsp__inst_executed_pipe_fma.sum,smsp__inst_executed_pipe_fp64.sum,smsp__inst_executed_op_shared_ld.sum,smsp__inst_executed_op_shared_st.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum
      M=$M,lts__t_sectors_op_read.sum,lts__t_sectors_op_write.sum,lts__t_sectors_op_red.sum,lts__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__warp_issue_stalled_drain_per_warp_active.pct,sm__warps_active.avg.pct_of_peak_sustained_active
      SB=${SMOOTHER_BUILD:-$B}; tag=${SB#build-}
      for case in ${SMOOTHER_PROFILE:-7:float 4:float 7:double 4:double}; do
        IFS=: read -r k prec <<< "$case"
        opt=${SMOOTHER_OPT:-linear_indexing}
        ncu --clock-control none --kernel-name-base demangled --launch-skip 3 --launch-count 1 --kernel-name regex:'FiberPatchKernel|MmaPatchKernel' \
          --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section ComputeWorkloadAnalysis --metrics $M \
          $SB/benchmarks/tpmg_bench smoother --dim 3 --degrees $k --precision $prec --kernel fused --optimization $opt --dofs 5e7 --groups 1 --runs 1 \
          > "$OUT/ncu_smoother_${tag}_${opt}_k${k}_$prec.txt" 2>&1
      done
      grep -H -E "dram__bytes|lts__t_|l1tex__t_|warps_active|Duration|Compute \(SM\) Throughput|Achieved Occupancy|Registers Per Thread|Issue Slots Busy|Block Limit (Registers|Shared)|stalled|pipe_|bank_conflicts|wavefronts_mem_shared|inst_executed|Pipe|Executed Ipc" "$OUT"/ncu_smoother_*.txt | sed 's|.*/ncu_smoother_||'
      ;;
    profilesource)
      # Nsight Compute's per-instruction view of the fused smoother (SOURCE_PROFILE "k:precision
      # ...", 3D linear_indexing, 5e7 DoFs, one launch): the SASS with executed instructions and
      # warp-stall samples per instruction, as CSV (gzipped), for benchmarks/sass_stalls.py
      ncu --version | tail -1
      for case in ${SOURCE_PROFILE:-5:float 6:double}; do
        IFS=: read -r k prec <<< "$case"
        rep="$OUT/src_k${k}_$prec"
        ncu --clock-control none --kernel-name-base demangled --launch-skip 3 --launch-count 1 --kernel-name regex:FiberPatchKernel \
          --section SourceCounters --section WarpStateStats -f -o "$rep" \
          $B/benchmarks/tpmg_bench smoother --dim 3 --degrees $k --precision $prec --kernel fused --optimization linear_indexing --dofs 5e7 --groups 1 --runs 1 > "$rep.log" 2>&1
        ncu -i "$rep.ncu-rep" --page source --csv --print-source sass > "$rep.csv" 2>> "$rep.log" || tail -5 "$rep.log"
        gzip -f "$rep.csv"; rm -f "$rep.ncu-rep"
        ls -la "$rep.csv.gz"
      done
      ;;
    table7k1)
      mkdir -p "$OUT/table7k1"
      for f in table7_k1_mixed table7_k1_double; do
        for opt in basic linear_indexing; do
          $B/apps/poisson_solver prm/$f.prm --set "Multigrid/Kernel optimization=$opt" --json "$OUT/table7k1/${f}_$opt.json" > "$OUT/table7k1/${f}_$opt.log" 2>&1
          echo "$f $opt: exit $? $(grep -A1 '^DoFs' "$OUT/table7k1/${f}_$opt.log" | tail -1)"
        done
      done
      tar czf "$OUT/table7k1.tgz" -C "$OUT" table7k1 && rm -rf "$OUT/table7k1"
      ;;
    deformed)
      for eps in 1.0 0.7 0.5; do
        $B/apps/poisson_solver prm/3d_fused_float.prm --set Mesh/Coarse\ cells=6 --set Mesh/Refinement\ level=3 --set Multigrid/Level\ operator=bp3 --set Mesh/Deformation=kershaw --set Mesh/Deformation\ amplitude=$eps --set Solver/Maximum\ iterations=300 --set Output/Verbose=false 2>&1 | grep -A1 "^DoFs" | tail -1 | sed "s/^/kershaw eps=$eps: /"
      done
      ;;
    sass)
      # are the 1D matrices immediate operands of the FMAs (no constant-bank operand)? registers and spills
      o=$(find $B -name 'patch_fiber_3d_float_conflict_free_lumped_false.cu.o' | head -1)
      cuobjdump -sass "$o" > "$OUT/fiber_3d_float_cf.sass" 2>&1
      echo "FFMA total $(grep -c FFMA "$OUT/fiber_3d_float_cf.sass"), with a constant-bank operand $(grep FFMA "$OUT/fiber_3d_float_cf.sass" | grep -c 'c\[0x3\]'), LDS $(grep -c 'LDS' "$OUT/fiber_3d_float_cf.sass"), STS $(grep -c 'STS' "$OUT/fiber_3d_float_cf.sass"), LDC $(grep -c 'LDC' "$OUT/fiber_3d_float_cf.sass")"
      gzip -f "$OUT/fiber_3d_float_cf.sass"
      ;;
    table7)
      mkdir -p "$OUT/table7"
      for f in table7_k1_mixed table7_k1_double table7_k3_mixed table7_k3_double table7_k7_mixed table7_k7_double; do
        $B/apps/poisson_solver prm/$f.prm --json "$OUT/table7/$f.json" > "$OUT/table7/$f.log" 2>&1
        echo "$f: exit $? $(grep -A1 '^DoFs' "$OUT/table7/$f.log" | tail -1)"
      done
      python3 benchmarks/plot_breakdown.py "$OUT"/table7/table7_*.json -o "$OUT/table7_breakdown.png" --levels
      tar czf "$OUT/table7.tgz" -C "$OUT" table7 && rm -rf "$OUT/table7"
      ;;
    table7best)
      # Table 7 with the fastest smoother kernel per degree (benchmarks/NOTES.md section 4),
      # right and left preconditioning
      mkdir -p "$OUT/table7best"
      for f in table7_k1_mixed table7_k1_double table7_k3_mixed table7_k3_double table7_k7_mixed table7_k7_double; do
        opt=linear_indexing # k = 1: the tile kernel (NOTES §4)
        for side in right left; do
          $B/apps/poisson_solver prm/$f.prm --set "Multigrid/Kernel optimization=$opt" --set "Solver/Preconditioning side=$side" \
            --json "$OUT/table7best/${f}_$side.json" > "$OUT/table7best/${f}_$side.log" 2>&1
          echo "$f $opt $side: exit $? $(grep -A1 '^DoFs' "$OUT/table7best/${f}_$side.log" | tail -1)"
        done
      done
      python3 benchmarks/plot_breakdown.py "$OUT"/table7best/table7_*_right.json -o "$OUT/table7best_breakdown.png" --levels
      tar czf "$OUT/table7best.tgz" -C "$OUT" table7best && rm -rf "$OUT/table7best"
      ;;
    table7right)
      # Table 7 as the README reports it: fastest kernels (fused linear_indexing; the tile kernel
      # at k = 1), right preconditioning, the prm files' GMRES restart; $T7_EXTRA: more runs of
      # the form name:file:--set,A=B,--set,C=D separated by ';' (A/B of solver settings)
      mkdir -p "$OUT/t7"
      IFS=';' read -r -a runs <<< "table7_k1_mixed;table7_k1_double;table7_k3_mixed;table7_k3_double;table7_k7_mixed;table7_k7_double;${T7_EXTRA:-}"
      for run in "${runs[@]}"; do
        [ -z "$run" ] && continue
        name=${run%%:*}; rest=${run#*:}; f=${rest%%:*}; [ "$rest" = "$run" ] && f=$run
        extra=(); [[ "$rest" == *:* ]] && IFS=',' read -r -a extra <<< "${rest#*:}"
        $B/apps/poisson_solver prm/$f.prm --set "Multigrid/Kernel optimization=linear_indexing" --set "Solver/Preconditioning side=right" \
          "${extra[@]}" --json "$OUT/t7/$name.json" > "$OUT/t7/$name.log" 2>&1
        echo "$name: exit $? $(grep -A1 '^DoFs' "$OUT/t7/$name.log" | tail -1)"
      done
      python3 benchmarks/plot_breakdown.py "$OUT"/t7/table7_k?_*.json -o "$OUT/t7/table7_breakdown.png" --levels
      tar czf "$OUT/table7right.tgz" -C "$OUT" t7 && rm -rf "$OUT/t7"
      ;;
    *)
      echo "unknown stage $stage" >&2
      exit 2
      ;;
  esac
done
