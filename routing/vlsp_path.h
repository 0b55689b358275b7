/*
 * vlsp_path.h - an SL per path: the vlsp engine's tables put on layers
 * again, one (source switch, destination LID) path at a time.
 *
 * DOC: vlsp routes each destination LID on a tree and puts the whole tree
 * on one layer (SL = VL), so every path to that LID rides the same VL.
 * Given the finished tables, this file puts the paths on layers again,
 * each path (from the switch it enters the fabric at, to the LID) on the
 * first layer whose channel dependency graph stays acyclic with its turns
 * added (routing/vlsp_layer.c, turn by turn, undone when one is refused).
 * A path is a chain, smaller than the tree it belongs to, so the layers
 * pack tighter: on vlsp's own tables of the 64-switch meshes, 4 layers
 * per path where the trees took 7.  The routes stay as they are; only
 * the SLs change, kept per path in lft_set.path_sl (one byte per switch
 * and LID, made only up to LFT_PATH_SL_MAX).  Pure: no I/O, no globals.
 */
#ifndef NANOSM_ROUTING_VLSP_PATH_H
#define NANOSM_ROUTING_VLSP_PATH_H

#include "routing/fabric.h"

/* Put the paths of out (tables of f, with per-destination SLs, n_vls
 * layers) on layers one by one.  When that takes fewer layers than
 * out->n_vls, out gets path_sl (each path's layer), sl[d] the layer of the
 * destination switch's own paths to d, and the lower n_vls; returns the
 * VLs used then.  Returns 0 and leaves out as it was when it takes as
 * many or more, when a path does not reach its LID over the switch
 * cables, or when the SLs per path would take more than
 * LFT_PATH_SL_MAX bytes; -ENOMEM. */
int vlsp_path_layer(const struct fabric *f, struct lft_set *out);

#endif
