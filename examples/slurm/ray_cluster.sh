#!/usr/bin/env bash
# Starts a Ray cluster across a SLURM allocation (Ray's documented pattern:
# the head on the first node, one worker per other node through srun, CPUs
# and GPUs from the allocation) and runs a command against it.
#
#   source examples/slurm/ray_cluster.sh
#   start_ray_cluster            # exports RAY_ADDRESS=<head ip>:<port>
#   softlearning run_example_cluster examples.development ...
#   stop_ray_cluster
#
# Settings (environment): RAY_PORT (default 6379), RAY_TEMP_DIR (default a
# folder of this job under /tmp), RAY_START_TIMEOUT (seconds, default 120).
# Token authentication (Ray 2.60): a token at ~/.ray/auth_token (shared home)
# turns it on for the head; every node and the driver then run with
# RAY_AUTH_MODE=token.

slurm_nodes() {
    # One host name per line.
    scontrol show hostnames "${SLURM_JOB_NODELIST:?not inside a SLURM job}"
}

slurm_cpus_per_node() {
    # SLURM_CPUS_ON_NODE is this node's CPUs of the job; with --cpus-per-task
    # the task's CPUs are what Ray may use.
    echo "${SLURM_CPUS_PER_TASK:-${SLURM_CPUS_ON_NODE:-1}}"
}

slurm_gpus_per_node() {
    local gpus="${SLURM_GPUS_ON_NODE:-0}"
    echo "${gpus:-0}"
}

node_ip() {
    # The address other nodes reach this node at.
    local node="$1"
    srun --nodes=1 --ntasks=1 -w "$node" hostname --ip-address | awk '{print $1}'
}

wait_for_nodes() {
    # Until Ray counts $1 alive nodes, at most RAY_START_TIMEOUT seconds.
    local expected="$1" deadline=$((SECONDS + ${RAY_START_TIMEOUT:-120}))
    while (( SECONDS < deadline )); do
        local alive
        alive=$(python -c "import ray; ray.init(address='$RAY_ADDRESS', logging_level='ERROR'); print(sum(n['Alive'] for n in ray.nodes()))" 2>/dev/null || echo 0)
        if [[ "$alive" -ge "$expected" ]]; then
            echo "Ray cluster: $alive nodes at $RAY_ADDRESS"
            return 0
        fi
        sleep 2
    done
    echo "Ray cluster did not reach $expected nodes in ${RAY_START_TIMEOUT:-120} s" >&2
    return 1
}

start_ray_cluster() {
    local port="${RAY_PORT:-6379}"
    RAY_TEMP_DIR="${RAY_TEMP_DIR:-/tmp/ray-${SLURM_JOB_ID:-$$}}"
    export RAY_TEMP_DIR
    if [[ -z "${RAY_AUTH_MODE:-}" && -f "$HOME/.ray/auth_token" ]]; then
        export RAY_AUTH_MODE=token
    fi
    mapfile -t nodes < <(slurm_nodes)
    local head="${nodes[0]}"
    local head_ip
    head_ip=$(node_ip "$head")
    export RAY_ADDRESS="$head_ip:$port"
    local cpus gpus
    cpus=$(slurm_cpus_per_node)
    gpus=$(slurm_gpus_per_node)

    echo "Ray head on $head ($RAY_ADDRESS), $cpus CPUs and $gpus GPUs per node"
    srun --nodes=1 --ntasks=1 -w "$head" \
        ray start --head --node-ip-address="$head_ip" --port="$port" \
        --num-cpus="$cpus" --num-gpus="$gpus" --temp-dir="$RAY_TEMP_DIR" \
        --block &
    RAY_HEAD_PID=$!
    wait_for_nodes 1

    RAY_WORKER_PIDS=()
    for node in "${nodes[@]:1}"; do
        srun --nodes=1 --ntasks=1 -w "$node" \
            ray start --address="$RAY_ADDRESS" --num-cpus="$cpus" \
            --num-gpus="$gpus" --block &
        RAY_WORKER_PIDS+=($!)
    done
    wait_for_nodes "${#nodes[@]}"
}

stop_ray_cluster() {
    # Our own processes only (never a machine-wide `ray stop`): workers
    # first, then the head.
    for pid in "${RAY_WORKER_PIDS[@]:-}"; do
        [[ -n "$pid" ]] && kill "$pid" 2>/dev/null || true
    done
    [[ -n "${RAY_HEAD_PID:-}" ]] && kill "$RAY_HEAD_PID" 2>/dev/null || true
    wait 2>/dev/null || true
}
