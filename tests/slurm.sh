#!/bin/sh
# slurm.sh — many traces across machines, on a one-node Slurm cluster of
# the test's own on this machine: munged (as the user munge, a key and a
# socket of its own), slurmctld and slurmd (as root, from a slurm.conf of
# the test's own: its own ports, state and spool directories, no cgroups,
# no systemd).  The installed job script (data/xcapanalyse-array.sbatch)
# runs as an array of 10 tasks over 200 traces made from tests/captures
# (runs/CELL/NNN-NAME), each leaving Parquet; DuckDB over the directory
# gives the figures that xcapanalyse -j 2 on one machine gives: the median
# Block Reply per cell and client and the 95th percentile of the response
# time per input kind (tests/engines-lib.sh).
. "${top_srcdir:-$(dirname "$0")/..}/tests/lib.sh"
. "$top_srcdir/tests/engines-lib.sh"
need root
need xcapanalyse xcap munged slurmctld slurmd sbatch sinfo setpriv timeout /usr/bin/python3
need_duckdb
getent passwd munge >/dev/null || skip "no user munge (Debian's munge package makes it)"
sanitized && skip "the cluster runs the plain build's xcapanalyse (ASan is the other tests' business)"

# munged insists that every directory up to its socket is searchable.
chmod 755 "$workdir"
cd "$workdir" || fail "no work directory"
mkdir -p munge msock ctld spool parquet
chown munge:munge munge msock && chmod 700 munge && chmod 755 msock
dd if=/dev/urandom of=munge/munge.key bs=1024 count=1 2>/dev/null
chown munge:munge munge/munge.key && chmod 400 munge/munge.key
stop_daemons() {	# [PIDFILE]: slurm's daemons, and (at exit) munged too
	for p in spool/slurmd.pid ctld/slurmctld.pid $1; do
		[ -s "$workdir/$p" ] && kill "$(cat "$workdir/$p")" 2>/dev/null
	done
	sleep 0.5
}
at_exit stop_daemons msock/munged.pid
setpriv --reuid=munge --regid=munge --clear-groups munged --key-file="$workdir/munge/munge.key" \
	--socket="$workdir/msock/munge.sock" --pid-file="$workdir/msock/munged.pid" \
	--log-file="$workdir/munge/munged.log" --seed-file="$workdir/munge/munged.seed" ||
	fail "munged did not start: $(tail -n 3 munge/munged.log)"

# Two ports, one for each daemon, that no socket uses, below the kernel's
# range of ports for outgoing connections: slurmctld gives up at once on a
# port in use, and in that range any other test's connection (there are
# many while the suite runs) may take one between our look and its bind.
# A CI run's slurmctld most likely died so (its log was not kept), and the
# test then asked sinfo for 15 minutes, until its wait gave up.
# 11000-19999 is also clear of the other tests' servers (X on 6000 + N,
# RFB on 5900 + N and 20900 + N, Wayland relays on 7400-7999).
eph_low=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || echo 32768)
[ "$eph_low" -gt 11100 ] 2>/dev/null || eph_low=32768
port_top=$((eph_low < 20000 ? eph_low : 20000))
port_used() { [ -n "$(listen_inodes "$1")" ] || ! port_idle "$1"; }	# tests/lib/xservers.sh
next_ports() {	# from $port on, the next free pair in 11000 to port_top
	while [ $((port + 1)) -ge "$port_top" ] || port_used "$port" || port_used $((port + 1)); do
		port=$((port + 2))
		[ $((port + 1)) -lt "$port_top" ] || port=11000
	done
}
# listening PORT PIDFILE: wait up to 10 s for the daemon to listen on
# PORT; fail at once if it wrote its pid and is gone.
listening() {
	i=0
	until [ -n "$(listen_inodes "$1")" ]; do
		[ -s "$2" ] && ! kill -0 "$(cat "$2")" 2>/dev/null && return 1
		i=$((i + 1))
		[ $i -gt 100 ] && return 1
		sleep 0.1
	done
}
port=$((11000 + $$ % 4000 * 2 % (port_top - 11002)))
attempt=1
while :; do
	next_ports
	cat >slurm.conf <<CONF
ClusterName=xcaptest
SlurmctldHost=localhost(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$port
SlurmdPort=$((port + 1))
AuthType=auth/munge
AuthInfo=socket=$workdir/msock/munge.sock
CredType=cred/munge
StateSaveLocation=$workdir/ctld
SlurmdSpoolDir=$workdir/spool
SlurmctldPidFile=$workdir/ctld/slurmctld.pid
SlurmdPidFile=$workdir/spool/slurmd.pid
SlurmctldLogFile=$workdir/ctld/slurmctld.log
SlurmdLogFile=$workdir/spool/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MpiDefault=none
NodeName=xcapnode NodeHostname=localhost NodeAddr=127.0.0.1 CPUs=2 State=UNKNOWN
PartitionName=xcap Nodes=xcapnode Default=YES MaxTime=INFINITE State=UP
CONF
	SLURM_CONF=$workdir/slurm.conf
	export SLURM_CONF
	slurmctld -f "$SLURM_CONF" -i || fail "slurmctld did not start: $(tail -n 5 ctld/slurmctld.log)"
	if listening "$port" ctld/slurmctld.pid; then
		slurmd -f "$SLURM_CONF" -N xcapnode || fail "slurmd did not start: $(tail -n 5 spool/slurmd.log)"
		listening $((port + 1)) spool/slurmd.pid && break
	fi
	# Taken after all (between our look and the bind): other ports, twice.
	grep -q 'Address already in use' ctld/slurmctld.log spool/slurmd.log 2>/dev/null && [ $attempt -lt 3 ] ||
		fail "slurmctld or slurmd is not listening on $port or $((port + 1)): $(tail -n 5 ctld/slurmctld.log spool/slurmd.log 2>&1)"
	say "port $port or $((port + 1)) was taken as the daemons bound it; trying the next two"
	stop_daemons
	rm -rf ctld/* spool/*
	port=$((port + 2)) attempt=$((attempt + 1))
done
# sinfo, with no controller to answer, retries for seconds: bound each ask
# and the whole wait.
deadline=$(($(date +%s) + 60))
until timeout 10 sinfo -h -o %T 2>/dev/null | grep -q idle; do
	[ "$(date +%s)" -lt "$deadline" ] ||
		fail "the node never came up: $(timeout 10 sinfo 2>&1; tail -n 5 ctld/slurmctld.log spool/slurmd.log)"
	sleep 0.2
done
say "slurmctld and slurmd on ports $port and $((port + 1)), munged as munge: $(sinfo -h -o '%P %D %T')"

# ---- 200 traces, 10 tasks ----
make_runs runs 200
ls runs/*/* >traces.list
XCAP_SQL=$top_srcdir/data/duckdb-sql.cjs XCAP_DUCKDB=$XCAP_DUCKDB
export XCAP_SQL XCAP_DUCKDB
timeout 900 sbatch --array=0-9 --wait --quiet "$top_srcdir/data/xcapanalyse-array.sbatch" >sbatch.out 2>&1 ||
	fail "the array job failed: $(cat sbatch.out; tail -n 5 parquet/*.log)"
n=$(ls parquet/delays-*.parquet | wc -l)
[ "$n" = 10 ] || fail "$n Parquet files of delays, not one from each of 10 tasks: $(ls parquet)"
say "array job: 10 tasks, $(ls parquet/*.parquet | wc -l) Parquet files, $(du -sk parquet | cut -f1) KB"

duckdb_sql "CREATE VIEW delays AS SELECT * FROM read_parquet('parquet/delays-*.parquet', union_by_name = true)" \
	"CREATE VIEW responses AS SELECT * FROM read_parquet('parquet/responses-*.parquet', union_by_name = true)" \
	"SELECT count(DISTINCT file) FROM delays" >traces.out 2>&1 || fail "DuckDB cannot read the directory: $(cat traces.out)"
[ "$(tail -1 traces.out)" = 200 ] || fail "the Parquet holds $(tail -1 traces.out) traces' delays, not 200"
duckdb_sql "CREATE VIEW delays AS SELECT * FROM read_parquet('parquet/delays-*.parquet', union_by_name = true)" \
	"CREATE VIEW responses AS SELECT * FROM read_parquet('parquet/responses-*.parquet', union_by_name = true)" \
	"$FIGURES_SQL" >duck.tsv 2>duck.err || fail "DuckDB's query failed: $(cat duck.err)"
tail -n +2 duck.tsv >cluster.figures

# ---- the same on one machine ----
xcapanalyse -j 2 --delays --format csv runs/*/* >delays.csv 2>/dev/null
xcapanalyse -j 2 --responses --format csv runs/*/* >responses.csv 2>/dev/null
own_figures delays.csv responses.csv >one.figures || fail "cannot work out -j 2's figures"
diff one.figures cluster.figures >diff.out ||
	fail "the cluster's figures differ from -j 2's: $(head -10 diff.out)"
say "$(wc -l <one.figures) figures identical: $(grep -c median one.figures) medians of Block Reply, $(grep -c p95 one.figures) p95 of response time"
grep -E 'xlogo|XTerm|p95' cluster.figures | sed "s/^/$test_name: /"
exit 0
