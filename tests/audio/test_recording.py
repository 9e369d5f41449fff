"""Recordings as an audio source: read from disk a block at a time, resampled as the live
path resamples, and a file with no audio it can hear is refused with its name."""

import struct
import tracemalloc

import numpy as np
import pytest

from referee.audio.recording import RecordingSource
from referee.audio.wav import AudioFileError, read_pcm16, resample, to_int16, write_wav


def _joined(src, channels):
    out = [[] for _ in range(channels)]
    for b in src:
        out[b.channel].append(b.samples)
    return [np.concatenate(o) for o in out]


def test_blocks_are_the_file_exactly(tmp_path):
    rng = np.random.default_rng(1)
    x = rng.integers(-30000, 30000, size=(16000 * 3 + 123, 3)).astype(np.int16)
    write_wav(tmp_path / "g.wav", x, 16000)
    got = _joined(RecordingSource(tmp_path / "g.wav", block_seconds=0.05), 3)
    for c in range(3):
        assert np.array_equal(got[c], x[:, c])


def test_resampled_blocks_are_the_whole_file_resampled(tmp_path):
    rng = np.random.default_rng(2)
    x = (rng.standard_normal((48000 * 2 + 7, 2)) * 0.1).astype(np.float32)
    write_wav(tmp_path / "g48.wav", x, 48000)
    pcm, _ = read_pcm16(tmp_path / "g48.wav")
    want = to_int16(resample(pcm, 48000, 16000))
    got = _joined(RecordingSource(tmp_path / "g48.wav", rate=16000, block_seconds=0.05), 2)
    for c in range(2):
        assert len(got[c]) == len(want)
        assert np.max(np.abs(got[c].astype(int) - want[:, c])) <= 1


def test_a_long_recording_is_not_read_into_memory(tmp_path):
    # 4 channels, 3 minutes: 23 MB of samples on disk
    n, ch = 16000 * 180, 4
    x = np.zeros((n, ch), np.int16)
    x[::97] = 1000
    write_wav(tmp_path / "long.wav", x, 16000)
    del x
    src = RecordingSource(tmp_path / "long.wav", block_seconds=0.05)
    tracemalloc.start()
    count = 0
    for b in src:
        count += len(b.samples)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert count == n * ch
    assert peak < 2_000_000, f"peak {peak / 1e6:.1f} MB while reading a 23 MB recording"


def _header_only(path, rate=16000, channels=1):
    fmt = struct.pack("<HHIIHH", 1, channels, rate, rate * 2 * channels, 2 * channels, 16)
    body = b"WAVE" + b"fmt " + struct.pack("<I", 16) + fmt + b"data" + struct.pack("<I", 0)
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)


def test_a_header_with_no_samples_is_named(tmp_path):
    _header_only(tmp_path / "empty.wav")
    with pytest.raises(AudioFileError, match=r"empty\.wav: holds no audio"):
        RecordingSource(tmp_path / "empty.wav")


def test_a_rate_too_low_to_hear_is_named(tmp_path):
    write_wav(tmp_path / "slow.wav", np.zeros(100, np.int16), 1)
    with pytest.raises(AudioFileError, match=r"slow\.wav: its sample rate, 1 Hz, is too low"):
        RecordingSource(tmp_path / "slow.wav")


@pytest.mark.parametrize("rate, to", [(16000, None), (48000, 16000), (11025, 16000)])
def test_a_recording_started_later_gives_the_blocks_from_there(tmp_path, rate, to):
    rng = np.random.default_rng(3)
    x = (rng.standard_normal((rate * 3 + 11, 2)) * 0.1).astype(np.float32)
    write_wav(tmp_path / "g.wav", x, rate)
    whole = list(RecordingSource(tmp_path / "g.wav", rate=to, block_seconds=0.1))
    src = RecordingSource(tmp_path / "g.wav", rate=to, block_seconds=0.1, start=1.25)
    assert src.start == pytest.approx(1.2)       # a whole block
    later = list(src)
    first = next(i for i, b in enumerate(whole) if b.start >= 1.2 - 1e-9)
    assert len(later) == len(whole) - first
    for a, b in zip(whole[first:], later):
        assert (a.channel, a.index, a.rate) == (b.channel, b.index, b.rate)
        assert len(a.samples) == len(b.samples)
    # a fresh resampler's first samples differ a little (it was not fed what came before)
    skip = 0 if to is None else 1
    for a, b in zip(whole[first + 2 * skip:], later[2 * skip:]):
        assert np.max(np.abs(a.samples.astype(int) - b.samples.astype(int))) <= 1


def test_a_start_past_the_end_gives_no_blocks_and_a_bad_start_is_refused(tmp_path):
    write_wav(tmp_path / "g.wav", np.zeros((16000, 2), np.int16), 16000)
    assert list(RecordingSource(tmp_path / "g.wav", start=5.0)) == []
    for bad in (-1.0, float("nan")):
        with pytest.raises(ValueError, match="0 s or later"):
            RecordingSource(tmp_path / "g.wav", start=bad)
