/* SPDX-License-Identifier: GPL-3.0-or-later */
#include "config.h"

#include "sim-level.h"

SimLevel
sim_level_of (float similarity,
              float high_threshold,
              float medium_threshold)
{
  if (similarity >= high_threshold)
    return SIM_LEVEL_HIGH;
  if (similarity >= medium_threshold)
    return SIM_LEVEL_MEDIUM;
  return SIM_LEVEL_LOW;
}

SimLevel
sim_level_judge (float similarity,
                 float weight,
                 guint evidence,
                 gboolean sentence,
                 float high_threshold,
                 float medium_threshold)
{
  /* A heading or "Yes." is too short to judge, and a shared name is no copy. */
  if (weight < SIM_LEVEL_MIN_WEIGHT ||
      evidence < (sentence ? SIM_LEVEL_MIN_SENTENCE_EVIDENCE : SIM_LEVEL_MIN_EVIDENCE))
    return SIM_LEVEL_LOW;
  return sim_level_of (similarity, high_threshold, medium_threshold);
}

const char *
sim_level_to_string (SimLevel level)
{
  switch (level)
    {
    case SIM_LEVEL_HIGH:
      return "high";
    case SIM_LEVEL_MEDIUM:
      return "medium";
    case SIM_LEVEL_LOW:
    default:
      return "low";
    }
}

static const struct {
  const char *color;
  double      alpha;
  const char *tint;   /* color at alpha over white */
} levels[] = {
  [SIM_LEVEL_LOW]    = { "#9a9996", 0.0,  "#ffffff" },
  [SIM_LEVEL_MEDIUM] = { "#f6d32d", 0.55, "#fbe98e" },
  [SIM_LEVEL_HIGH]   = { "#e01b24", 0.35, "#f8b4b4" },
};

const char *
sim_level_color (SimLevel level)
{
  return levels[MIN (level, SIM_LEVEL_HIGH)].color;
}

double
sim_level_tint_alpha (SimLevel level)
{
  return levels[MIN (level, SIM_LEVEL_HIGH)].alpha;
}

const char *
sim_level_tint (SimLevel level)
{
  return levels[MIN (level, SIM_LEVEL_HIGH)].tint;
}

const char *
sim_level_excluded_tint (void)
{
  return "#deddda";
}

static const struct {
  const char *color;
  const char *tint;   /* color at SOURCE_ALPHA over white */
} sources[SIM_SOURCE_N_COLORS] = {
  { "#77aadd", "#adcceb" },  /* light blue */
  { "#ee8866", "#f5b8a3" },  /* orange */
  { "#eedd88", "#f5ebb8" },  /* light yellow */
  { "#ffaabb", "#ffccd6" },  /* pink */
  { "#99ddff", "#c2ebff" },  /* light cyan */
  { "#44bb99", "#8fd6c2" },  /* mint */
  { "#bbcc33", "#d6e085" },  /* pear */
  { "#aaaa00", "#cccc66" },  /* olive */
};
#define SOURCE_ALPHA 0.6

const char *
sim_source_color (guint number)
{
  return sources[(MAX (number, 1) - 1) % SIM_SOURCE_N_COLORS].color;
}

double
sim_source_tint_alpha (void)
{
  return SOURCE_ALPHA;
}

const char *
sim_source_tint (guint number)
{
  return sources[(MAX (number, 1) - 1) % SIM_SOURCE_N_COLORS].tint;
}
