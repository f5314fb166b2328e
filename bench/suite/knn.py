import numpy as np


def run(n, iters):
    q, dims, k, classes = 400, 8, 7, 4
    it = np.arange(n, dtype=np.float64)
    iq = np.arange(q, dtype=np.float64)
    j = np.arange(dims, dtype=np.float64)
    train = np.sin(it[:, None] * 0.37 + j[None, :] * 1.3)
    test = 0.9 * np.cos(iq[:, None] * 0.61 + j[None, :] * 0.7)
    labels = (np.arange(n) * 7 + np.arange(n) // 5) % classes
    d2 = np.sum((test[:, None, :] - train[None, :, :]) ** 2, axis=2)
    nearest = np.argmin(d2, axis=1)
    idx = np.argsort(d2, axis=1)[:, :k]
    votes = labels[idx]
    counts = np.sum(votes[:, :, None] == np.arange(classes), axis=1)
    pred = np.argmax(counts, axis=1)
    kth = np.take_along_axis(d2, idx[:, k - 1:k], axis=1)
    base = np.transpose(train)
    target = np.transpose(test)
    dist = np.sqrt(np.add.reduce((base[:, np.newaxis] - target[:, :, np.newaxis]) ** 2))
    r = np.max(dist, axis=0)
    return [pred.sum(), counts[:, 0].sum(), labels[nearest].sum(), np.sqrt(kth).sum(), d2.min(axis=1).sum(), r.sum(), np.abs(dist * dist - d2).max()]
