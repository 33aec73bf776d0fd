#!/usr/bin/env bash
# A softlearning experiment on a SLURM allocation:
#
#   sbatch examples/slurm/sbatch_example.sh examples.development \
#       --universe gym --domain HalfCheetah --task v5 --num-samples 8 \
#       --trial-cpus 2 --upload-dir /shared/ray_results
#
# Edit the #SBATCH lines for your cluster. The results folder (--upload-dir)
# must be on a file system every node sees (or a URI such as s3://...).
#SBATCH --job-name=softlearning
#SBATCH --nodes=2
#SBATCH --ntasks-per-node=1
#SBATCH --cpus-per-task=8
#SBATCH --time=24:00:00
#SBATCH --output=softlearning-%j.out

set -euo pipefail
# sbatch runs a copy of this script; SLURM_SUBMIT_DIR is where it was
# submitted (the repository's root, with softlearning installed).
cd "${SLURM_SUBMIT_DIR:-$(dirname "$0")/../..}"
# shellcheck source=examples/slurm/ray_cluster.sh
source examples/slurm/ray_cluster.sh

start_ray_cluster
trap stop_ray_cluster EXIT
softlearning run_example_cluster "$@"
