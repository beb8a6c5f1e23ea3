/* SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What a server snapshot's two files share (sim-server-snapshot.c opens a
 * snapshot, keeps its connections and documents and looks keys up;
 * sim-server-snapshot-texts.c reads the texts a check asks for): the
 * snapshot's remote data and the helpers both use. Internal to them.
 */
#pragma once

#include <xxhash.h>

#include "sim-server-private.h"
#include "sim-snapshot-private.h"

G_BEGIN_DECLS

#define DOC_CHUNK     1024u
#define MAX_DOC_ID    (1u << 28) /* documents beyond are not found */
#define DOC_CHUNKS    (MAX_DOC_ID / DOC_CHUNK)
#define PLACE_CHUNK   65536u
#define PLACE_CHUNKS  65536u     /* 4G places */

typedef struct {
  char          *conninfo;
  char          *password;    /* or NULL: the libpq ways */
  char          *name;
  GMutex         lock;        /* what follows */
  GPtrArray     *idle;        /* SimServer */
  GStringChunk  *strings;
  SimCorpusDoc  *docs[DOC_CHUNKS];       /* by index; id 0: not found */
  guint64       *places[PLACE_CHUNKS];   /* document index << 32 | start */
  gint           n_docs;      /* the largest index found + 1, atomic for readers */
  gint64         n_places;
  GArray        *removed;     /* gint64 ids of documents removed that runs may hold, sorted; NULL: not known */
  GArray        *expected;    /* guint64 keys the next lookup asks for too (remote_expect()) */
  GHashTable    *kept;        /* an expected key's postings (SimPosting GArray), by the key */
  gboolean       direct;      /* lookups by SIM_SERVER_LOOKUP_DIRECT */
} Remote;

/* ------------------------------------------------- sim-server-snapshot.c */

Remote             *_sim_server_remote_of         (const SimCorpusSnapshot *snapshot);
/* An idle connection of the snapshot's, or a new one. */
SimServer          *_sim_server_remote_take       (Remote                  *r,
                                                   GError                 **error);
/* A connection that failed is not given back: it may be broken. */
void                _sim_server_remote_give_back  (Remote                  *r,
                                                   SimServer               *server,
                                                   gboolean                 ok);
const SimCorpusDoc *_sim_server_remote_get_doc    (const SimCorpusSnapshot *snapshot,
                                                   guint                    index);
/* Under the lock: whether document @id is one a lookup found. */
gboolean            _sim_server_remote_is_known   (Remote                  *r,
                                                   gint64                   id);
/* The path of a document a lookup found, not read yet: its name, title
 * and whether its text is kept from this account come with its text. */
extern const char   _sim_server_undescribed[];

/* -------------------------------------------- sim-server-snapshot-texts.c */

/* SnapshotRemote's read_texts (sim-snapshot-private.h). */
gboolean            _sim_server_remote_read_texts (const SimCorpusSnapshot *snapshot,
                                                   const guint             *indices,
                                                   guint                    n,
                                                   const guint32           *los,
                                                   const guint32           *his,
                                                   SimStoreText           **texts,
                                                   GError                 **error);

G_END_DECLS
