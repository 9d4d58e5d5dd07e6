# skip import on a real torch.profiler trace of tests/gpu/torch_mlp.py (made on the H100 by
# tests/gpu/torchprof_record.py) against a `skip record` trace of the same program on the same
# machine: the same kernels, total kernel time within 1% (two runs of the program), and the
# report's --region step works on the import. Looks in $SKIP_TORCHPROF, else
# tests/fixtures/torchprof; skipped when the pair is not there.
. "$(dirname "$0")/lib.sh"
cd "$TMPDIR" || exit 1
dir=${SKIP_TORCHPROF:-$FIXTURES/torchprof}
trace=$dir/torch_mlp.pt.trace.json.gz
rec=$dir/torch_mlp.skip.db
[ -e "$trace" ] && [ -e "$rec" ] || skip_test "no real torch.profiler trace pair in $dir"

expect_exit 0 "$SKIP" import "$trace" -o imp.skip.db
k_imp=$(sql imp.skip.db "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
k_rec=$(sql "$rec" "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL")
[ "$k_imp" = "$k_rec" ] || fail "kernels: imported $k_imp, recorded $k_rec"
t_imp=$(sql imp.skip.db "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL")
t_rec=$(sql "$rec" "SELECT sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL")
awk -v a="$t_imp" -v b="$t_rec" 'BEGIN { d = (a - b) / b; if (d < 0) d = -d; exit !(d <= 0.01) }' ||
	fail "kernel time: imported $t_imp ns, recorded $t_rec ns (more than 1% apart)"
n_imp=$(sql imp.skip.db "SELECT count(DISTINCT s.value) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName")
n_rec=$(sql "$rec" "SELECT count(DISTINCT s.value) FROM CUPTI_ACTIVITY_KIND_KERNEL k JOIN StringIds s ON s.id = k.shortName")
[ "$n_imp" = "$n_rec" ] || fail "distinct kernel names: imported $n_imp, recorded $n_rec"
linked=$(sql imp.skip.db "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL k WHERE EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r WHERE r.correlationId = k.correlationId AND r.globalTid >> 24 = k.globalPid >> 24)")
[ "$linked" = "$k_imp" ] || fail "only $linked of $k_imp kernels join their launch call"
expect_exit 0 "$SKIP" report imp.skip.db --region step
expect_out "region: each occurrence of the NVTX range 'step' (20, 0 without GPU work)"
expect_exit 0 "$SKIP" advise imp.skip.db --region forward
exit 0
