"""``softlearning simulate`` and ``softlearning export``: their options.

    softlearning simulate CHECKPOINT_DIR --max-path-length 1000 \\
        --num-rollouts 3 --video-path cheetah.mp4
    softlearning export CHECKPOINT_DIR OUT_DIR   (a plain-TF SavedModel)

CHECKPOINT_DIR is a ``checkpoint_00000N`` folder (or a trial folder: its
latest checkpoint). The environment is rebuilt from the variant saved with
the checkpoint.
"""

import sys

from .options import (
    ArgumentParser, json_dict, positive_int, report_errors, str2bool)


def get_parser():
    parser = ArgumentParser(
        prog='softlearning simulate',
        description='Run a trained policy from a checkpoint; print each '
                    "rollout's return and length; optionally write an MP4.")
    parser.add_argument('checkpoint_path', metavar='CHECKPOINT_DIR')
    parser.add_argument('--max-path-length', type=positive_int, default=1000)
    parser.add_argument('--num-rollouts', type=positive_int, default=1)
    parser.add_argument('--render-kwargs', type=json_dict, default={},
                        help='JSON, e.g. \'{"mode": "rgb_array", "width": '
                             '320, "height": 240}\'. mode "human" opens a '
                             'window (needs a display).')
    parser.add_argument('--video-path', type=str, default=None,
                        help='Write the rollouts, one after another, as an '
                             'MP4 (implies mode "rgb_array").')
    parser.add_argument('--fps', type=positive_int, default=None,
                        help="Video frame rate (default: the environment's).")
    parser.add_argument('--deterministic', type=str2bool, default=True,
                        help='Act with the mode of the policy (default) or '
                             'sample (False).')
    parser.add_argument('--seed', type=int, default=0,
                        help='Seed of the first rollout (then +1 each).')
    return parser


def main(argv=None):
    args = get_parser().parse_args(argv)
    from softlearning.experiments.trial.simulate import simulate
    return report_errors(
        simulate, args.checkpoint_path, max_path_length=args.max_path_length,
        num_rollouts=args.num_rollouts, render_kwargs=args.render_kwargs,
        video_path=args.video_path, fps=args.fps,
        deterministic=args.deterministic, seed=args.seed)


def export_main(argv=None):
    parser = ArgumentParser(
        prog='softlearning export',
        description='Save the policy of a checkpoint as a TensorFlow '
                    'SavedModel (or an ONNX model) that acts without '
                    'softlearning installed.')
    parser.add_argument('checkpoint_path', metavar='CHECKPOINT_DIR')
    parser.add_argument('output_dir', metavar='OUT_DIR')
    parser.add_argument(
        '--format', choices=('savedmodel', 'onnx'), default='savedmodel',
        help='savedmodel (default): a TensorFlow SavedModel in OUT_DIR; '
             'onnx: OUT_DIR/policy.onnx and policy.json (observation keys '
             'and sizes, action bounds), written without TensorFlow '
             "(needs pip install 'softlearning[onnx]'). Feedforward "
             'state-based policies only.')
    args = parser.parse_args(argv)
    from softlearning.experiments.trial.simulate import export
    return report_errors(export, args.checkpoint_path, args.output_dir,
                         format=args.format)


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
