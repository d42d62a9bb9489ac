"""SentEval's transfer-task protocol (Conneau & Kiela 2018) on frozen sentence embeddings.

Study D (Dolci et al. 2023, §5.1.2, Tables 8-10) scores its retrained encoders on twelve SentEval tasks.
SentEval itself is unmaintained (its data downloads are broken); this package re-implements the parts the
paper uses, following ``facebookresearch/SentEval`` (``senteval/{binary,sst,trec,mrpc,sick,sts}.py``,
``senteval/tools/{validation,relatedness}.py``) and reading the files that its ``get_transfer_data.bash``
writes.  An encoder is any callable ``encode(list[str]) -> array [n, d]``.

Tasks (SentEval names; folder under ``data_root``, SentEval's ``data/downstream``), files, protocol, metric:

* MR ``MR/rt-polarity.{pos,neg}``, CR ``CR/custrev.{pos,neg}``, SUBJ ``SUBJ/subj.{objective,subjective}``
  (objective = label 1, as SentEval), MPQA ``MPQA/mpqa.{pos,neg}``: no split -- k-fold cross-validation,
  C chosen by an inner k-fold CV in each outer fold (``InnerKFoldClassifier``); accuracy.
* SST2 ``SST/binary/sentiment-{train,dev,test}`` (``text<TAB>label``) and SST5 ``SST/fine/...``
  (``label text``): C chosen on dev, test accuracy (``SplitClassifier``).
* TREC ``TREC/train_5500.label`` + ``TREC_10.label`` (``COARSE:fine question``, 6 coarse classes): C by
  k-fold CV on train, refit on train, test accuracy (``KFoldClassifier``).
* MRPC ``MRPC/msr_paraphrase_{train,test}.txt``: features ``[|u-v|, u*v]``, as TREC; accuracy and F1.
* SICKEntailment ``SICK/SICK_{train,trial,test_annotated}.txt``: ``[|u-v|, u*v]``, C on trial (dev);
  accuracy.  SICKRelatedness (same files) and STSBenchmark ``STS/STSBenchmark/sts-{train,dev,test}.csv``:
  ``[|u-v|, u*v]`` -> softmax regression onto a score distribution (below); Pearson / Spearman.
* STS14 ``STS/STS14-en-test/STS.{input,gs}.<subset>.txt``: cosine vs gold, no training; Pearson / Spearman.

``SST/Binary`` and ``SST/Fine-Grained`` (the names in this project's shared sample) are accepted for
``SST/binary`` and ``SST/fine``, and ``<data_root>/downstream/...`` for ``<data_root>/...``.

Classifiers (``ClassifierSettings``, the config's ``senteval.classifier``): ``usepytorch=True`` is the
toolkit's standard setting and the paper's ("10-fold cross-validation, Adam optimisation, batch size of 64,
tenacity of 5, and epoch size of 4"): its PyTorch logistic regression (``nhid=0``) or MLP, L2 grid
``10**-5 .. 10**-2``, early stopping (:mod:`.mlp`, :mod:`.classifiers`).  ``usepytorch=False`` is its
scikit-learn logistic regression.  Both give the toolkit's own numbers on the same features (the PyTorch
path on CPU: ``tests/sentence_bias/data/senteval_toolkit_reference.json`` keeps a run of its code).

What matches SentEval (both paths; the solver notes are the scikit-learn path's):

* file parsing: the same columns, encodings (latin-1 for MR/CR/SUBJ/MPQA/TREC, utf-8 elsewhere), header
  lines skipped (MRPC, SICK), empty gold scores dropped (STS14); SentEval tokenises by ``str.split()`` and
  hands token lists to its batcher -- the encoder here gets ``" ".join(line.split())``.  Empty lines of
  MR/CR/SUBJ/MPQA stay as (empty) samples, as SentEval's ``splitlines`` keeps them (so CR has 3,775 samples).
* the data order SentEval builds before embedding and splitting (stable sort by token length, then label),
  so the stratified folds (``StratifiedKFold(k, shuffle=True, random_state=seed)``) are the same samples.
* the C grids: ``2**-2 .. 2**3`` (MR/CR/SUBJ/MPQA inner CV; SST, SICK-E dev selection) and
  ``2**-1 .. 2**5`` (TREC, MRPC train CV) -- note: not ``2**-2 .. 2**4``; this is what
  ``validation.py`` does (``range(-2, 4)`` and ``range(-1, 6)``).  Per-C scores are rounded to 2 decimals
  (percent) before the arg-max (first maximum wins), the reported accuracies as in SentEval.
* ``LogisticRegression(C=c, random_state=seed)`` with the scikit-learn defaults of SentEval's time
  (0.18-0.21): ``solver="liblinear"``, one-vs-rest for more than two classes (wrapped in
  ``OneVsRestClassifier`` because current scikit-learn's liblinear refuses multi-class), ``tol=1e-4``,
  ``max_iter=100``; convergence warnings are silenced.  ``solver="lbfgs"`` gives today's default
  (multinomial) instead.
* relatedness (SICK-R, STS-B): SentEval's ``RelatednessPytorch`` -- features ``[|u-v|, u*v]``, gold score
  ``y`` encoded as a distribution over the classes 1..5 (Tai et al. 2015: class ``floor(y) + 1`` gets
  ``y - floor(y)``, class ``floor(y)`` gets ``floor(y) - y + 1``), model ``Linear(2d, 5) + Softmax``, MSE loss, Adam
  (lr 1e-3, no weight decay), batch 64, rounds of 50 epochs, early stopping on dev Pearson of ``p @ [1..5]``
  (stop at the 4th round without improvement, cumulative count, at most epoch 1000), best model kept;
  test Pearson, Spearman and MSE of ``p @ [1..5]``.  As in SentEval, STS-B's 0-5 scores go through the
  same 1..5 encoding (a score below 1 has no mass at "0"; SentEval issue #83) -- kept for comparability.
  Run on CPU; the initialisation (``torch.manual_seed(seed)``) and the batch order
  (``RandomState(seed).permutation``) use SentEval's seeds.  The loss is averaged over the batch, which is
  what ``loss_fn.size_average = False`` amounts to on torch >= 1.0 (and Adam is insensitive to the scale).
* STS14: cosine of the two embeddings (``nan_to_num`` as SentEval), Pearson and Spearman per subset
  (deft-forum, deft-news, headlines, images, OnWN, tweet-news), their mean and their mean weighted by the
  number of pairs; ``score`` is the weighted mean Pearson, the mean is reported too.

What does not match:

* SentEval hard-codes ``random_state=1111`` for the MR/CR/SUBJ/MPQA folds; here it is ``seed``
  (default 1111, hence identical by default).  ``kfold`` defaults to 10 as in the paper ("10-fold
  cross-validation"; SentEval's own default is 5).
* SentEval calls the batcher in batches of its ``batch_size`` over the length-sorted data; here the
  encoder is called in chunks of ``batch_size`` too (deterministic encoders give the same vectors).
* Empty or malformed lines: SentEval crashes on some (TREC, SST); here blank lines of the split files are
  skipped and malformed ones raise ``ValueError`` with file and line.
* Bitwise equality with a SentEval run needs the same library versions and device (CUDA rounds
  differently from the CPU); the protocol, folds, grids, seeds and selection rules are the same.
* The PyTorch path can run its fits in parallel processes (``n_jobs``): each fit is seeded on its own, as in
  the toolkit, so the numbers do not change.

Modules: :mod:`.data` (the task files and their loaders), :mod:`.tasks` (the registry of tasks, folders
and protocols), :mod:`.classifiers` (the classification protocols), :mod:`.mlp` (the toolkit's PyTorch
classifier), :mod:`.relatedness` (SICK-R,
STS-B) and :mod:`.runner` (:func:`run_senteval`); every public name is importable from this package.
"""

from cdaflow.sentence_bias.senteval import classifiers, data, mlp, relatedness, runner, tasks
from cdaflow.sentence_bias.senteval.classifiers import *  # noqa: F403
from cdaflow.sentence_bias.senteval.data import *  # noqa: F403
from cdaflow.sentence_bias.senteval.mlp import *  # noqa: F403
from cdaflow.sentence_bias.senteval.relatedness import *  # noqa: F403
from cdaflow.sentence_bias.senteval.runner import *  # noqa: F403
from cdaflow.sentence_bias.senteval.tasks import *  # noqa: F403

__all__ = [*classifiers.__all__, *data.__all__, *mlp.__all__, *relatedness.__all__, *runner.__all__, *tasks.__all__]
