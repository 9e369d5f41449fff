"""WAV reading in every common layout, resampling and int16 conversion."""

import struct
import wave

import numpy as np
import pytest

from referee.audio.wav import AudioFileError, read_wav, resample, to_int16, write_wav


def _write(path, payload: bytes, *, tag=1, channels=1, rate=16000, bits=16, extensible=False):
    align = channels * bits // 8
    if extensible:
        fmt = struct.pack("<HHIIHHHHI", 0xFFFE, channels, rate, rate * align, align, bits,
                          22, bits, 0) + struct.pack("<H", tag) + b"\x00" * 14
    else:
        fmt = struct.pack("<HHIIHH", tag, channels, rate, rate * align, align, bits)
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt
    body += b"LIST" + struct.pack("<I", 4) + b"INFO"  # an unrelated chunk to skip
    body += b"data" + struct.pack("<I", len(payload)) + payload
    path.write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    return path


REF = np.array([[0.0, -1.0], [0.5, 0.25], [-0.5, 0.999]], dtype=np.float64)


@pytest.mark.parametrize("bits,tag,enc", [
    (8, 1, lambda v: (np.round(v * 127) + 128).astype(np.uint8).tobytes()),
    (16, 1, lambda v: np.round(v * 32767).astype("<i2").tobytes()),
    (24, 1, lambda v: b"".join(int(round(s * 8388607)).to_bytes(3, "little", signed=True)
                              for s in v.ravel())),
    (32, 1, lambda v: np.round(v * 2147483647).astype("<i4").tobytes()),
    (32, 3, lambda v: v.astype("<f4").tobytes()),
    (64, 3, lambda v: v.astype("<f8").tobytes()),
])
@pytest.mark.parametrize("extensible", [False, True])
def test_reads_every_layout_as_frames_by_channels(tmp_path, bits, tag, enc, extensible):
    p = _write(tmp_path / "x.wav", enc(REF), tag=tag, channels=2, rate=22050, bits=bits,
               extensible=extensible)
    x, rate = read_wav(p)
    assert rate == 22050
    assert x.dtype == np.float32 and x.shape == (3, 2)
    tol = 2 / 127 if bits == 8 else 1e-4
    np.testing.assert_allclose(x, REF, atol=tol)


def test_roundtrip_with_python_wave(tmp_path):
    x = (np.sin(np.arange(800) / 7) * 0.5).astype(np.float32)
    write_wav(tmp_path / "a.wav", np.stack([x, -x], axis=1), 8000)
    with wave.open(str(tmp_path / "a.wav")) as w:
        assert (w.getnchannels(), w.getframerate(), w.getsampwidth()) == (2, 8000, 2)
    y, rate = read_wav(tmp_path / "a.wav")
    assert rate == 8000 and y.shape == (800, 2)
    np.testing.assert_allclose(y[:, 1], -x, atol=1e-4)


@pytest.mark.parametrize("content,why", [
    (b"", "not a WAV"),
    (b"hello world, this is text", "not a WAV"),
    (b"RIFF\x04\x00\x00\x00WAVE", "no format chunk"),
])
def test_bad_files_raise_naming_the_file(tmp_path, content, why):
    p = tmp_path / "bad.wav"
    p.write_bytes(content)
    with pytest.raises(AudioFileError, match=why) as e:
        read_wav(p)
    assert "bad.wav" in str(e.value)
    assert isinstance(e.value, ValueError)


def test_missing_file_and_unsupported_encoding(tmp_path):
    with pytest.raises(AudioFileError, match="nope.wav"):
        read_wav(tmp_path / "nope.wav")
    p = _write(tmp_path / "alaw.wav", b"\x00\x01", tag=6, bits=8)
    with pytest.raises(AudioFileError, match="format tag 0x6"):
        read_wav(p)
    p = _write(tmp_path / "nodata.wav", b"")
    p.write_bytes(p.read_bytes()[: -8])  # cut the data chunk header off
    with pytest.raises(AudioFileError, match="no data chunk"):
        read_wav(p)


@pytest.mark.parametrize("src,dst", [(44100, 16000), (48000, 16000), (8000, 16000),
                                     (22050, 16000), (11025, 16000), (16000, 8000)])
def test_resample_keeps_tones_in_band_and_length(src, dst):
    t = np.arange(src) / src
    x = np.sin(2 * np.pi * 440 * t).astype(np.float32)
    y = resample(x, src, dst)
    assert len(y) == dst
    ref = np.sin(2 * np.pi * 440 * np.arange(dst) / dst)
    assert np.abs(y[100:-100] - ref[100:-100]).max() < 1e-3


def test_resample_removes_what_the_new_rate_cannot_hold():
    x = np.sin(2 * np.pi * 10000 * np.arange(44100) / 44100)  # above 8 kHz Nyquist
    y = resample(x, 44100, 16000)
    assert np.sqrt(np.mean(y[100:-100] ** 2)) < 0.03


def test_resample_per_channel():
    t = np.arange(48000) / 48000
    x = np.stack([np.sin(2 * np.pi * 300 * t), np.zeros_like(t)], axis=1)
    y = resample(x, 48000, 16000)
    assert y.shape == (16000, 2)
    assert np.abs(y[:, 1]).max() == 0
    assert np.abs(y[100:-100, 0]).max() > 0.99


def test_to_int16_clips_and_rounds():
    got = to_int16(np.array([0.0, 1.0, -1.0, 2.0, -2.0, 0.5]))
    assert got.dtype == np.int16
    assert got.tolist() == [0, 32767, -32767, 32767, -32768, 16384]
    same = np.array([1, 2], dtype=np.int16)
    assert to_int16(same) is same


def test_a_wav_written_a_piece_at_a_time_is_the_one_written_at_once(tmp_path):
    from referee.audio.wav import WavWriter, write_wav

    x = np.sin(np.arange(3000) / 7.0) * 0.5
    write_wav(tmp_path / "once.wav", x, 22050)
    with WavWriter(tmp_path / "pieces.wav", 22050) as w:
        for i in range(0, len(x), 1000):
            w.write(x[i:i + 1000])
        assert w.frames == len(x)
    assert (tmp_path / "once.wav").read_bytes() == (tmp_path / "pieces.wav").read_bytes()
