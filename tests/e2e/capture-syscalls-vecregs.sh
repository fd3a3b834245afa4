# island-capture --syscalls makes a rewritten `syscall` site's calls in
# island_zp_entry (sudstub.S), whose C code uses the vector registers: it
# must put back everything a system call keeps. tests/apps/vecregs makes
# 2,000 raw calls from one site with known values in ymm0-15 (upper halves
# in use, and clean), the x87 stack and MXCSR, and prints what changed:
# under the capture as natively, on the first call (SIGSYS) and on the
# rewritten site, whether the entry saves ymm0-15 itself or xsaves
# everything (ISLAND_ZP_XSAVE=1), and with signals only. A clean upper
# state comes back clean (restored whole, it stayed in use: a cost to
# every SSE instruction after it on some CPUs).
. "$ISLAND_ROOT/tests/e2e/lib.sh"

"$APPS/vecregs" 2000 > native.out || fail "vecregs failed natively"
if grep -q 'no AVX' native.out; then
	echo "no AVX on this machine"
	exit 77
fi
sed '$d' native.out > native.regs
# (and zmm0-31 with k1-7 where there is AVX-512: a third call each time)
lines=3
grep -q "^zmm0-31" native.out && lines=4
expect_eq "native" "$(grep -c ": 0 changed" native.out)" $lines
for how in fast xsave signals; do
	case $how in
	fast) env= ;;
	xsave) env=ISLAND_ZP_XSAVE=1 ;;
	signals) env=ISLAND_NO_REWRITE=1 ;;
	esac
	env $env "$CAPTURE" --syscalls -o $how.xml -- "$APPS/vecregs" 2000 > $how.out ||
		fail "$how: vecregs failed under the capture"
	check_trace $how.xml
	expect_eq "$how: registers" "$(sed '$d' $how.out)" "$(cat native.regs)"
	# the site is rewritten where the capture maps page 0 (root here)
	if [ "$(id -u)" = 0 ]; then
		want=rewritten
		[ $how = signals ] && want=syscall
		expect_eq "$how: the site" "$(tail -1 $how.out)" "site: $want"
	fi
	expect_eq "$how: calls recorded" "$(grep -c 'api="getppid"' $how.xml)" $((2000 * (lines - 1)))
done
exit 0
