"""The benchmark suites of bench/ run and report ratios against PyTorch (tiny sizes: no timing bars)."""

from __future__ import annotations

import math

import pytest

from bench import accuracy, common, memory, models, ops, phases, profiler, run


def test_the_elementwise_chain_reports_a_time_per_op_for_both():
    ((name, timing),) = ops.run(n_ops=20, rounds=1)
    assert "chain" in name
    assert timing.ours > 0 and timing.theirs > 0 and timing.ratio > 0


@pytest.mark.parametrize("case", list(models.CASES))
def test_a_training_step_of_each_model_is_timed_against_torch(case):
    ((label, timing),) = models.run([case], rounds=1, reps=1, size=2)
    assert "batch 2" in label
    assert timing.ratio > 0 and timing.cpu_ratio > 0


@pytest.mark.parametrize("case", list(models.CASES))
def test_twin_models_start_from_the_same_loss(case):
    mt_step, torch_step = models.training_steps(models.CASES[case], size=2)
    assert math.isclose(mt_step().item(), torch_step().item(), rel_tol=1e-4)


def test_the_phases_of_a_step_are_timed_for_both():
    times = phases.run("mlp", steps=1, rounds=1)
    assert list(times) == list(phases.PHASES)
    assert all(ours >= 0 and theirs >= 0 for ours, theirs in times.values())
    assert times["forward"][0] > 0 and times["forward"][1] > 0


def test_the_profiler_suite_times_steps_with_the_profiler_on_and_off():
    rows = profiler.run(rounds=1)
    assert [name for name, _ in rows] == ["1,000-op chain, forward + backward", "MLP 784-128-10 step, batch 64"]
    assert all(timing.ours > 0 and timing.theirs > 0 for _, timing in rows)


@pytest.mark.parametrize("model", memory.MODELS)
def test_the_memory_worker_reports_the_rise_of_its_peak(model):
    for impl in ("minitorch_rx", "torch"):
        result = memory.worker(model, impl, steps=1, size=2)
        # Linux syncs each thread's resident-set counters lazily, so the high-water mark of one
        # batch-2 step can read a fraction of a MiB below the baseline taken just after its reset.
        assert result["peak_rise_mib"] > -1 and result["baseline_mib"] > 0


def test_the_memory_bench_lets_the_tuner_choose_before_it_measures(tmp_path, monkeypatch):
    from minitorch_rx.backends import tuner

    monkeypatch.setenv("MINITORCH_RX_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(tuner, "enabled", True)  # (off in the other tests)
    tuner.clear()
    try:
        made = memory.worker("lenet5", "settle", steps=1, size=2)
        assert made == {"choices": len(tuner.choices())} and tuner.choices()  # the layouts and slices, measured
    finally:
        tuner.clear()


def test_the_accuracy_suite_trains_both_twins_alike():
    ours, theirs, source = accuracy.train_both(epochs=1, root=None, limit=256)
    assert "subset" in source
    assert abs(ours - theirs) <= 1.0


def test_the_table_prints_each_measure_with_its_ratio_and_bar(capsys):
    rows = [
        run.Row("timing", "1.00 ms", "2.00 ms", 0.5, 0.55, 0.7),
        run.Row("accuracy", "98.00%", "98.30%", -0.3, None, 0.2, absolute=True),
    ]
    run.print_rows(rows)
    lines = capsys.readouterr().out.splitlines()
    assert "0.50x" in lines[1] and "0.55x" in lines[1] and lines[1].endswith("yes")
    assert "-0.30pt" in lines[2] and lines[2].endswith("NO")


def test_quick_tables_do_not_judge_the_bars_and_rows_without_a_bar_say_so(capsys):
    rows = [run.Row("timing", "1.00 ms", "2.00 ms", 0.5, 0.55, 0.7), run.Row("ddp", "1/s", "1/s", 1.0, None, None)]
    run.print_rows(rows, quick=True)
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].endswith("n/a") and lines[2].endswith("-")


def test_the_times_shown_are_those_that_gave_the_ratio():
    assert common.median_round([3.0, 1.0, 2.0], [1.0, 1.0, 4.0]) == (1.0, 1.0, 1.0)
    timing = common.compare(lambda: sum(range(200)), lambda: sum(range(100)), rounds=3, repeat=5, warmup=0)
    assert timing.round_ours / timing.round_theirs == pytest.approx(timing.ratio)


def test_the_conv_suite_gives_rows_in_the_table():
    rows = run._conv_rows(quick=True, data_root=None)
    assert [row.bar for row in rows] == [1.6, 2.5] and all(row.value > 0 for row in rows)


def test_the_run_table_has_the_sequence_rows_with_their_bars():
    rows = run._sequence_rows(quick=True, data_root=None)
    assert [row.bar for row in rows] == [1.0, 1.2]
    assert "transformer, batch 2 x 8 steps, AdamW" in rows[0].name and "lstm, batch 2 x 8 steps, Adam" in rows[1].name
    assert all(row.value > 0 and row.cpu > 0 for row in rows)


def test_a_memory_row_within_its_allowance_meets_its_bar():
    over = run.Row("LeNet-5 step: peak anonymous", "11.5 MiB", "10.1 MiB", 1.14, None, 1.0, within=True)
    assert over.met
    assert not run.Row("ResNet-20 step: peak anonymous", "330 MiB", "300 MiB", 1.1, None, 1.0, within=False).met


def test_the_kernel_choices_in_force_are_described(monkeypatch):
    monkeypatch.setattr(run.tuner, "_choices", {})
    assert "none made" in run.describe_kernels("tuned")
    assert "autotune off" in run.describe_kernels("fixed") and "MKL" in run.describe_kernels("mkl")


def test_the_kernel_settings_are_each_timed_against_torch():
    from bench import kernels

    ratios = kernels.run("mlp", ["fixed", "mkl"], reps=1, rounds=1)
    assert set(ratios) == {"fixed", "mkl"} and all(cpu > 0 and wall > 0 for cpu, wall in ratios.values())
