"""Whole-model checks: ResNet-50, a BERT-base encoder layer and a LLaMA-style decoder layer
built from tl.ops match PyTorch eager (CPU, float32) on the same random weights: relative
error max|got - ref| / max|ref| <= 1e-3 and cosine similarity >= 0.999.
make test runs ResNet-50 at batch 1, 64x64; the 224x224 batch 1 and 8 runs are @slow."""
import os
import sys

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="model tests compare against PyTorch (the test extra)")
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models as M  # noqa: E402

torch.set_num_threads(max(1, os.cpu_count() or 1))


def _compare(got, ref, what):
    got = np.asarray(got, np.float64)
    ref = np.asarray(ref, np.float64)
    assert got.shape == ref.shape, f"{what}: shape {got.shape} != {ref.shape}"
    rel = np.max(np.abs(got - ref)) / np.max(np.abs(ref))
    cos = float(np.dot(got.ravel(), ref.ravel()) / (np.linalg.norm(got) * np.linalg.norm(ref)))
    print(f"{what}: max rel err {rel:.3g}, cosine {cos:.7f}")
    assert np.isfinite(got).all(), f"{what}: non-finite output"
    assert rel <= 1e-3 and cos >= 0.999, f"{what}: max rel err {rel:.3g}, cosine {cos:.7f}"
    return rel, cos


def _resnet(batch, size, seed=0):
    rng = np.random.default_rng(seed)
    p = M.resnet50_params(rng)
    x = rng.standard_normal((batch, 3, size, size)).astype(np.float32)
    _compare(M.resnet50_tl(p, x), M.resnet50_torch(p, x), f"resnet50 b{batch} {size}x{size}")


def test_resnet50_b1_64():
    _resnet(1, 64)


@pytest.mark.slow
@pytest.mark.parametrize("batch", [1, 8])
def test_resnet50_224(batch):
    _resnet(batch, 224)


def test_bert_base_encoder_layer():
    rng = np.random.default_rng(1)
    p = M.bert_params(rng)
    x = rng.standard_normal((2, 64, 768)).astype(np.float32)
    keep = np.ones((2, 64), bool)
    keep[1, 40:] = False    # padding mask: the second sequence has 40 real tokens
    _compare(M.bert_layer_tl(p, x, keep), M.bert_layer_torch(p, x, keep), "bert-base layer")


def test_llama_decoder_layer():
    rng = np.random.default_rng(2)
    p = M.llama_params(rng)
    x = rng.standard_normal((2, 64, 512)).astype(np.float32)
    cos, sin = M.rope_tables(64, 512 // p["heads"])
    _compare(M.llama_layer_tl(p, x, cos, sin), M.llama_layer_torch(p, x, cos, sin), "llama layer (GQA 8/2)")
