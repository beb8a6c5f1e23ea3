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
                 float high_threshold,
                 float medium_threshold)
{
  /* A heading or "Yes." is too short to judge, and a shared name is no copy. */
  if (weight < SIM_LEVEL_MIN_WEIGHT || evidence < SIM_LEVEL_MIN_EVIDENCE)
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
