# =============================================================================
# Source : IntelPython/dpbench, dpbench/benchmarks/default/knn/knn_numba_cuda.py, kernel `_knn_kernel`
#          https://github.com/IntelPython/dpbench/blob/0b59bd251543e0e3ab6dc53c07f694757d32f3b3/dpbench/benchmarks/default/knn/knn_numba_cuda.py
# License: Apache-2.0
# Project: dpbench (real)
# What   : k-nearest-neighbour classification: 2-D cuda.local.array with dtype taken from `train.dtype`,
#          insertion sort with while loops, len() of a local array, row views, `[k - 1][0]` chained indexing.
# Port   : import line only
# =============================================================================

ORIGINAL = r'''
from math import ceil, sqrt

from numba import cuda


@cuda.jit
def _knn_kernel(  # noqa: C901: TODO: can we simplify logic?
    train,
    train_labels,
    test,
    k,
    classes_num,
    train_size,
    predictions,
    votes_to_classes_lst,
    data_dim,
):
    dtype = train.dtype

    i = cuda.grid(1)

    # here k has to be 5 in order to match with numpy
    queue_neighbors = cuda.local.array(shape=(5, 2), dtype=dtype)

    for j in range(k):
        x1 = train[j]
        x2 = test[i]

        distance = dtype.type(0.0)
        for jj in range(data_dim):
            diff = x1[jj] - x2[jj]
            distance += diff * diff
        dist = sqrt(distance)

        queue_neighbors[j, 0] = dist
        queue_neighbors[j, 1] = train_labels[j]

    for j in range(k):
        new_distance = queue_neighbors[j, 0]
        new_neighbor_label = queue_neighbors[j, 1]
        index = j

        while index > 0 and new_distance < queue_neighbors[index - 1, 0]:
            queue_neighbors[index, 0] = queue_neighbors[index - 1, 0]
            queue_neighbors[index, 1] = queue_neighbors[index - 1, 1]

            index = index - 1

            queue_neighbors[index, 0] = new_distance
            queue_neighbors[index, 1] = new_neighbor_label

    for j in range(k, train_size):
        x1 = train[j]
        x2 = test[i]

        distance = dtype.type(0.0)
        for jj in range(data_dim):
            diff = x1[jj] - x2[jj]
            distance += diff * diff
        dist = sqrt(distance)

        if dist < queue_neighbors[k - 1][0]:
            queue_neighbors[k - 1][0] = dist
            queue_neighbors[k - 1][1] = train_labels[j]
            new_distance = queue_neighbors[k - 1, 0]
            new_neighbor_label = queue_neighbors[k - 1, 1]
            index = k - 1

            while index > 0 and new_distance < queue_neighbors[index - 1, 0]:
                queue_neighbors[index, 0] = queue_neighbors[index - 1, 0]
                queue_neighbors[index, 1] = queue_neighbors[index - 1, 1]

                index = index - 1

                queue_neighbors[index, 0] = new_distance
                queue_neighbors[index, 1] = new_neighbor_label

    votes_to_classes = votes_to_classes_lst[i]

    for j in range(len(queue_neighbors)):
        votes_to_classes[int(queue_neighbors[j, 1])] += 1

    max_ind = 0
    max_value = dtype.type(0)

    for j in range(classes_num):
        if votes_to_classes[j] > max_value:
            max_value = votes_to_classes[j]
            max_ind = j

    predictions[i] = max_ind
'''

# ---- PORT: the published text, its import line changed --------------------------------------------
from math import ceil, sqrt

from hybrid_runtime import cuda


@cuda.jit
def _knn_kernel(  # noqa: C901: TODO: can we simplify logic?
    train,
    train_labels,
    test,
    k,
    classes_num,
    train_size,
    predictions,
    votes_to_classes_lst,
    data_dim,
):
    dtype = train.dtype

    i = cuda.grid(1)

    # here k has to be 5 in order to match with numpy
    queue_neighbors = cuda.local.array(shape=(5, 2), dtype=dtype)

    for j in range(k):
        x1 = train[j]
        x2 = test[i]

        distance = dtype.type(0.0)
        for jj in range(data_dim):
            diff = x1[jj] - x2[jj]
            distance += diff * diff
        dist = sqrt(distance)

        queue_neighbors[j, 0] = dist
        queue_neighbors[j, 1] = train_labels[j]

    for j in range(k):
        new_distance = queue_neighbors[j, 0]
        new_neighbor_label = queue_neighbors[j, 1]
        index = j

        while index > 0 and new_distance < queue_neighbors[index - 1, 0]:
            queue_neighbors[index, 0] = queue_neighbors[index - 1, 0]
            queue_neighbors[index, 1] = queue_neighbors[index - 1, 1]

            index = index - 1

            queue_neighbors[index, 0] = new_distance
            queue_neighbors[index, 1] = new_neighbor_label

    for j in range(k, train_size):
        x1 = train[j]
        x2 = test[i]

        distance = dtype.type(0.0)
        for jj in range(data_dim):
            diff = x1[jj] - x2[jj]
            distance += diff * diff
        dist = sqrt(distance)

        if dist < queue_neighbors[k - 1][0]:
            queue_neighbors[k - 1][0] = dist
            queue_neighbors[k - 1][1] = train_labels[j]
            new_distance = queue_neighbors[k - 1, 0]
            new_neighbor_label = queue_neighbors[k - 1, 1]
            index = k - 1

            while index > 0 and new_distance < queue_neighbors[index - 1, 0]:
                queue_neighbors[index, 0] = queue_neighbors[index - 1, 0]
                queue_neighbors[index, 1] = queue_neighbors[index - 1, 1]

                index = index - 1

                queue_neighbors[index, 0] = new_distance
                queue_neighbors[index, 1] = new_neighbor_label

    votes_to_classes = votes_to_classes_lst[i]

    for j in range(len(queue_neighbors)):
        votes_to_classes[int(queue_neighbors[j, 1])] += 1

    max_ind = 0
    max_value = dtype.type(0)

    for j in range(classes_num):
        if votes_to_classes[j] > max_value:
            max_value = votes_to_classes[j]
            max_ind = j

    predictions[i] = max_ind

# ---- CHECK: arguments, an independent NumPy reference, the launch ----------------------------------
import numpy as np  # noqa: E402


def make_args(rng):
    test_size, train_size, dim, classes = 256, 40, 4, 3
    x_train = rng.random((train_size, dim))
    y_train = rng.integers(0, classes, train_size).astype(np.int64)
    x_test = rng.random((test_size, dim))
    return [x_train, y_train, x_test, 5, classes, train_size, np.zeros(test_size, np.int64),
            np.zeros((test_size, classes)), dim]


def reference(x_train, y_train, x_test, k, classes, train_size, predictions, votes, dim):
    d = np.sqrt(((x_test[:, None, :] - x_train[None, :, :]) ** 2).sum(-1))
    nearest = np.argsort(d, axis=1, kind="stable")[:, :k]
    for i in range(len(x_test)):
        for j in nearest[i]:
            votes[i, y_train[j]] += 1
    predictions[:] = np.argmax(votes, axis=1)
    return {"predictions": predictions, "votes": votes}


def run(x_train, y_train, x_test, k, classes_num, train_size, predictions, votes_to_classes, data_dim):
    nthreads = 256
    nblocks = ceil(len(x_test) // nthreads)
    _knn_kernel[nblocks, nthreads](x_train, y_train, x_test, k, classes_num, train_size, predictions,
                                   votes_to_classes, data_dim)


CASE = dict(kernel="_knn_kernel", args=["x_train", "y_train", "x_test", "k", "classes", "train_size", "predictions",
                                         "votes", "dim"], outputs=["predictions", "votes"])
