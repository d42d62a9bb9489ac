"""A throw-away one-node SLURM cluster for the workflow tests.

Installs Debian's ``slurmctld``, ``slurmd``, ``slurm-client`` and ``munge`` when they are missing, writes a
``slurm.conf`` for this machine (its host name, its CPUs, ~80 % of its memory, one stand-in GPU) with all
state, spool, logs, pid files, the munge key and the munge socket under one temporary folder, starts
munged, slurmctld and slurmd in the foreground as child processes, and stops them by their process ids.
Anything that keeps the cluster from starting raises :class:`SlurmUnavailable` with the precise reason,
which the tests turn into a skip; every wait has a timeout.

Clients (``sbatch``, ``squeue``, ``scontrol``, and the Snakemake SLURM executor that calls them) reach
this cluster through the ``SLURM_CONF`` environment variable in :attr:`SlurmCluster.env`.
"""

from __future__ import annotations

import logging
import os
import shlex
import shutil
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

logger = logging.getLogger(__name__)

DEBIAN_PACKAGES = ("slurmctld", "slurmd", "slurm-client", "munge")
# Programs the cluster needs, and the Debian package that ships each.
PROGRAMS = {
    "munged": "munge",
    "munge": "munge",
    "slurmctld": "slurmctld",
    "slurmd": "slurmd",
    "sbatch": "slurm-client",
    "squeue": "slurm-client",
    "scontrol": "slurm-client",
    "scancel": "slurm-client",
    "srun": "slurm-client",
}
# Unix sockets (munge's, slurmstepd's in the spool folder) must fit in sun_path (108 bytes).
MAX_SOCKET_PATH = 100
MEMORY_FRACTION = 0.8


class SlurmUnavailable(RuntimeError):
    """The cluster could not be installed or started here; the message says why."""


@dataclass
class SlurmCluster:
    """A running one-node cluster; :meth:`stop` ends its daemons by their process ids."""

    root: Path
    node_name: str
    programs: dict[str, str]
    processes: dict[str, subprocess.Popen] = field(default_factory=dict)
    _log_handles: list = field(default_factory=list, init=False, repr=False)

    @property
    def conf(self) -> Path:
        return self.root / "etc" / "slurm.conf"

    @property
    def munge_socket(self) -> Path:
        return self.root / "munge" / "munge.socket"

    @property
    def log_dir(self) -> Path:
        return self.root / "log"

    @property
    def shim_dir(self) -> Path:
        return self.root / "bin"

    @property
    def env(self) -> dict[str, str]:
        """What a client process (and the jobs it submits) needs in its environment to reach this cluster."""
        return {
            "SLURM_CONF": str(self.conf),
            "PATH": os.pathsep.join([str(self.shim_dir), os.environ.get("PATH", os.defpath)]),
        }

    def client(self, program: str, *args: str, timeout: float = 30) -> subprocess.CompletedProcess:
        """Run a SLURM client command against this cluster."""
        return subprocess.run(
            [self.programs[program], *args],
            env={**os.environ, **self.env},
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def jobs(self) -> list[dict[str, str]]:
        """Every job slurmctld still knows (MinJobAge keeps finished ones), as `scontrol -o` fields."""
        result = self.client("scontrol", "-o", "show", "job")
        if result.returncode != 0:
            raise RuntimeError(f"scontrol show job failed: {result.stderr.strip()}")
        return [parse_scontrol_line(line) for line in result.stdout.splitlines() if line.startswith("JobId=")]

    def log_tail(self, name: str, chars: int = 3000) -> str:
        path = self.log_dir / f"{name}.log"
        return path.read_text(errors="replace")[-chars:] if path.exists() else f"({path} was not written)"

    def start(self, timeout: float = 60) -> None:
        """Start munged, slurmctld and slurmd, each only after the one before answers."""
        self._launch(
            "munged",
            [
                self.programs["munged"], "--foreground", "--force",
                f"--socket={self.munge_socket}",
                f"--key-file={self.root / 'munge' / 'munge.key'}",
                f"--log-file={self.log_dir / 'munged.log'}",
                f"--pid-file={self.root / 'munge' / 'munged.pid'}",
                f"--seed-file={self.root / 'munge' / 'munged.seed'}",
            ],
        )
        self._wait_until("munged", self._munge_answers, timeout)
        # -D: stay in the foreground, so that the Popen's pid is the daemon's.
        self._launch("slurmctld", [self.programs["slurmctld"], "-D", "-f", str(self.conf)])
        self._wait_until("slurmctld", lambda: self.client("scontrol", "ping", timeout=10).returncode == 0, timeout)
        self._launch("slurmd", [self.programs["slurmd"], "-D", "-f", str(self.conf), "-N", self.node_name])
        self._wait_until("slurmd", self._node_is_idle, timeout)

    def stop(self, timeout: float = 20) -> list[str]:
        """Cancel jobs, then stop slurmd, slurmctld and munged by pid; return what had to be killed."""
        if "slurmctld" in self.processes and self.processes["slurmctld"].poll() is None:
            try:
                self.client("scancel", "--full", "--user", str(os.getuid()), timeout=10)
            except subprocess.TimeoutExpired:
                logger.warning("scancel timed out; stopping the daemons anyway")
        # slurmstepd and job processes are children of slurmd: note them now to check them after.
        spawned = {pid: start for process in self.processes.values() for pid, start in descendants(process.pid).items()}
        killed = []
        for name in ("slurmd", "slurmctld", "munged"):
            process = self.processes.get(name)
            if process is None or process.poll() is not None:
                continue
            process.send_signal(signal.SIGTERM)
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait(timeout=timeout)
                killed.append(f"{name} (pid {process.pid})")
        for pid, start in sorted(spawned.items()):
            if process_start_time(pid) == start:  # still the same process, not a reused pid
                os.kill(pid, signal.SIGKILL)
                killed.append(f"child pid {pid}")
        for handle in self._log_handles:
            handle.close()
        return killed

    def survivors(self) -> list[int]:
        """Pids of our daemons (by Popen, and any process naming our folder) still alive."""
        alive = {process.pid for process in self.processes.values() if process.poll() is None}
        alive |= {pid for pid in processes_mentioning(f"{self.root}{os.sep}") if pid != os.getpid()}
        return sorted(alive)

    # -- internals ---------------------------------------------------------------------
    def _launch(self, name: str, command: list[str]) -> None:
        # The daemons' own stdout/stderr (errors before their log file opens) go to <name>.out.
        handle = open(self.log_dir / f"{name}.out", "w")
        self._log_handles.append(handle)
        logger.info("starting %s", " ".join(command))
        try:
            self.processes[name] = subprocess.Popen(
                command,
                stdout=handle,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                env={**os.environ, **self.env},
                start_new_session=True,  # a terminal's Ctrl-C reaches pytest, which then stops us in order
            )
        except OSError as error:
            raise SlurmUnavailable(f"cannot start {name} ({command[0]}): {error}") from error

    def _wait_until(self, name: str, ready: Callable[[], bool], timeout: float) -> None:
        process = self.processes[name]
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise SlurmUnavailable(
                    f"{name} exited with status {process.returncode} while starting; its output:\n"
                    f"{(self.log_dir / f'{name}.out').read_text(errors='replace')[-2000:]}\n"
                    f"its log:\n{self.log_tail(name, 2000)}"
                )
            try:
                if ready():
                    return
            except subprocess.TimeoutExpired:
                pass
            time.sleep(0.5)
        raise SlurmUnavailable(f"{name} did not become ready within {timeout:.0f} s; its log:\n{self.log_tail(name)}")

    def _munge_answers(self) -> bool:
        if not self.munge_socket.exists():
            return False
        credential = subprocess.run(
            [self.programs["munge"], "-n", f"--socket={self.munge_socket}"], capture_output=True, timeout=10
        )
        return credential.returncode == 0 and credential.stdout.startswith(b"MUNGE:")

    def _node_is_idle(self) -> bool:
        result = self.client("scontrol", "-o", "show", "node", self.node_name, timeout=10)
        if result.returncode != 0:
            return False
        state = parse_scontrol_line(result.stdout.strip()).get("State", "")
        return state.startswith("IDLE")


def parse_scontrol_line(line: str) -> dict[str, str]:
    """`scontrol -o` output (``Key=value`` pairs, space-separated) as a dict; values keep any '='."""
    fields: dict[str, str] = {}
    for token in line.split():
        key, sep, value = token.partition("=")
        if sep:
            fields[key] = value
    return fields


def process_start_time(pid: int) -> int | None:
    """When `pid` started (clock ticks after boot; /proc/<pid>/stat field 22), None once it is gone.

    A pid with the same start time is the same process, not a later one that reused the number.
    """
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # Fields after the command (which may hold spaces) in parentheses: state (3), ppid (4), ... starttime (22).
    fields = text.rsplit(")", 1)[1].split()
    return None if fields[0] == "Z" else int(fields[19])


def descendants(pid: int) -> dict[int, int]:
    """All processes below `pid` now (read from /proc), with their start times."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            text = stat.read_text()
        except OSError:
            continue  # the process ended while we read
        ppid = int(text.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(stat.parent.name))
    found: dict[int, int] = {}
    pending = [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            started = process_start_time(child)
            if child not in found and started is not None:
                found[child] = started
                pending.append(child)
    return found


def processes_mentioning(text: str) -> list[int]:
    """Pids whose command line contains `text`."""
    pids = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if text in cmdline.read_bytes().replace(b"\0", b" ").decode(errors="replace"):
                pids.append(int(cmdline.parent.name))
        except OSError:
            continue
    return pids


def pid_alive(pid: int) -> bool:
    """Whether `pid` runs (a zombie has exited: only its parent's wait is missing)."""
    return process_start_time(pid) is not None


def find_programs(search_path: str | None = None) -> dict[str, str | None]:
    """Where each needed program is (None when missing); sbin folders are searched too."""
    path = search_path or os.pathsep.join([os.environ.get("PATH", ""), "/usr/sbin", "/sbin"])
    return {program: shutil.which(program, path=path) for program in PROGRAMS}


def ensure_installed(
    programs: Mapping[str, str | None] | None = None, timeout: float = 600
) -> tuple[dict[str, str], float]:
    """The programs' paths, installing the missing packages with apt-get; and the seconds installing took."""
    programs = dict(programs if programs is not None else find_programs())
    missing = sorted({PROGRAMS[name] for name, path in programs.items() if path is None})
    if not missing:
        return {name: path for name, path in programs.items() if path}, 0.0
    if os.geteuid() != 0:
        raise SlurmUnavailable(f"packages {missing} are missing and installing them needs root")
    apt_get = shutil.which("apt-get")
    if apt_get is None:
        raise SlurmUnavailable(f"packages {missing} are missing and there is no apt-get to install them")
    started = time.monotonic()
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    # A fresh machine has no package lists yet; `update` is what an install then needs first.
    for command in (
        [apt_get, "update", "-q"],
        [apt_get, "install", "-y", "-q", "--no-install-recommends", *DEBIAN_PACKAGES],
    ):
        logger.info("running %s", " ".join(command))
        try:
            result = subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            raise SlurmUnavailable(f"'{' '.join(command)}' did not finish within {timeout:.0f} s") from None
        if result.returncode != 0:
            raise SlurmUnavailable(
                f"'{' '.join(command)}' failed with status {result.returncode}: {result.stderr.strip()[-1500:]}"
            )
    found = find_programs()
    still_missing = sorted(name for name, path in found.items() if path is None)
    if still_missing:
        raise SlurmUnavailable(f"after installing {list(DEBIAN_PACKAGES)}, {still_missing} are still not on PATH")
    return {name: path for name, path in found.items() if path}, time.monotonic() - started


def free_port() -> int:
    """A TCP port nobody listens on now (two test runs at once must not share slurmctld's port)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def memory_total_mb(meminfo: Path = Path("/proc/meminfo")) -> int:
    for line in meminfo.read_text().splitlines():
        if line.startswith("MemTotal:"):
            return int(line.split()[1]) // 1024  # reported in kB
    raise SlurmUnavailable(f"{meminfo}: no MemTotal line")


def node_name() -> str:
    """The name slurmd gives itself by default: the host name up to its first dot."""
    return socket.gethostname().split(".")[0]


def slurm_conf(
    root: Path,
    node: str,
    cpus: int,
    real_memory_mb: int,
    controller_port: int,
    node_port: int,
    min_job_age_s: int = 3600,
) -> str:
    """A one-node ``slurm.conf`` keeping every file it names under `root`."""
    return "\n".join(
        [
            "# One-node test cluster written by tests/workflow/slurm_cluster.py.",
            "ClusterName=cdaflowtest",
            f"SlurmctldHost={node}(127.0.0.1)",
            f"SlurmctldPort={controller_port}",
            f"SlurmdPort={node_port}",
            "SlurmUser=root",
            "SlurmdUser=root",
            "AuthType=auth/munge",
            "CredType=cred/munge",
            # Our own munged: its socket is under root, not /run/munge.
            f"AuthInfo=socket={root / 'munge' / 'munge.socket'}",
            f"StateSaveLocation={root / 'state'}",
            f"SlurmdSpoolDir={root / 'spool'}",
            f"SlurmctldPidFile={root / 'slurmctld.pid'}",
            f"SlurmdPidFile={root / 'slurmd.pid'}",
            f"SlurmctldLogFile={root / 'log' / 'slurmctld.log'}",
            f"SlurmdLogFile={root / 'log' / 'slurmd.log'}",
            "SlurmctldDebug=info",
            "SlurmdDebug=info",
            # No cgroups needed: linuxproc tracks job processes by parentage.
            "ProctrackType=proctrack/linuxproc",
            "TaskPlugin=task/none",
            "SelectType=select/cons_tres",
            "SelectTypeParameters=CR_CPU_Memory",
            "SchedulerType=sched/backfill",
            "MpiDefault=none",
            "MailProg=/bin/true",  # Debian's default mailer is absent; slurmctld only complains
            "SwitchType=switch/none",
            # No slurmdbd: no accounting (sacct has nothing to read; the profile polls with squeue).
            "AccountingStorageType=accounting_storage/none",
            "JobAcctGatherType=jobacct_gather/none",
            "JobCompType=jobcomp/none",
            # Finished jobs stay visible to squeue/scontrol, which the status checks and the test read.
            f"MinJobAge={min_job_age_s}",
            "ReturnToService=2",
            "GresTypes=gpu",
            f"NodeName={node} NodeAddr=127.0.0.1 CPUs={cpus} RealMemory={real_memory_mb} Gres=gpu:1 State=UNKNOWN",
            f"PartitionName=test Nodes={node} Default=YES MaxTime=INFINITE State=UP",
            "",
        ]
    )


# A stand-in GPU: enough for slurmctld to schedule `--gpus=1`; the job itself finds no CUDA device.
GRES_CONF = "Name=gpu File=/dev/null Count=1\n"


def write_srun_shim(cluster: SlurmCluster) -> Path:
    """An `srun` first on the jobs' PATH that puts SLURM_CONF back before running the real one.

    snakemake-executor-plugin-slurm-jobstep runs each job as `srun ... python -m snakemake ...` with every
    SLURM_* variable but the allocation's ids removed, SLURM_CONF included; a real cluster's srun then
    finds /etc/slurm/slurm.conf, ours (kept out of /etc) would be found by nothing.
    """
    cluster.shim_dir.mkdir(exist_ok=True)
    shim = cluster.shim_dir / "srun"
    shim.write_text(
        "#!/bin/sh\n"
        "# Written by tests/workflow/slurm_cluster.py: the jobstep plugin drops SLURM_CONF.\n"
        f"SLURM_CONF={shlex.quote(str(cluster.conf))} exec {shlex.quote(cluster.programs['srun'])} \"$@\"\n"
    )
    shim.chmod(0o755)
    return shim


def create_cluster(root: Path, programs: Mapping[str, str]) -> SlurmCluster:
    """Write the cluster's files under `root` (not started yet)."""
    # slurmstepd names its sockets "<spool>/<node>_<job>.<step>".
    if len(str(root / "spool")) + len(node_name()) + 24 > MAX_SOCKET_PATH:
        raise SlurmUnavailable(f"{root} is too long a folder for the daemons' unix sockets")
    for folder in ("etc", "state", "spool", "log", "munge"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    # munged refuses a key or socket folder others may write to; others need only to reach the socket.
    os.chmod(root / "munge", 0o711)
    key = root / "munge" / "munge.key"
    key.write_bytes(os.urandom(128))
    os.chmod(key, 0o600)
    node = node_name()
    cluster = SlurmCluster(root=root, node_name=node, programs=dict(programs))
    cluster.conf.write_text(
        slurm_conf(
            root,
            node=node,
            cpus=os.cpu_count() or 1,
            real_memory_mb=int(memory_total_mb() * MEMORY_FRACTION),
            controller_port=free_port(),
            node_port=free_port(),
        )
    )
    (cluster.conf.parent / "gres.conf").write_text(GRES_CONF)  # slurmd reads it beside slurm.conf
    write_srun_shim(cluster)
    return cluster
