# Makes Tests/TesseraBabyTests/Fixtures/who-anthro-reference.csv: a population of children scored by
# the WHO's own software, the R package `anthro` (WorldHealthOrganization/anthro), which the baby
# diary's z-scores must equal to two decimals (GrowthAnthroReferenceTests).
#
# Usage (not part of the build or the tests; R and anthro are needed only to remake the file):
#   apt-get install r-base-core r-cran-survey
#   R CMD INSTALL <a checkout of github.com/WorldHealthOrganization/anthro>
#   Rscript scripts/who-anthro-reference.R > Tests/TesseraBabyTests/Fixtures/who-anthro-reference.csv
#
# The population is drawn with a fixed seed, so the file is the same each time: 3,000 children of
# both sexes, 0–1,900 days old (past the 60 months where Anthro stops scoring), measured lying or
# standing whatever their age (so the 0.7 cm correction and the "standing under 9 months" rule are
# both exercised), some without a position, 1 in 20 with oedema, values with up to three decimals
# (as a parent types them), most near the WHO median and some far out (beyond ±3 SD, where the
# restricted tails apply, and beyond the implausibility flags).
suppressPackageStartupMessages(library(anthro))
set.seed(20261129)

n <- 3000
sex <- sample(1:2, n, replace = TRUE)
age <- sample(0:1900, n, replace = TRUE)
spread <- ifelse(runif(n) < 0.85, 1.2, 4.5)  # most children near the median, some far out

# A measurement near the WHO median for the child's age and sex, `z` standard deviations away.
at_z <- function(table, key, x, sex, z) {
  row <- match(paste(sex, pmin(x, max(table[[key]]))), paste(table$sex, table[[key]]))
  l <- table$l[row]; m <- table$m[row]; s <- table$s[row]
  v <- m * (1 + l * s * z)^(1 / l)
  ifelse(is.finite(v) & v > 0, v, m)
}
weights <- anthro:::growthstandards_weianthro
lengths <- anthro:::growthstandards_lenanthro
heads <- anthro:::growthstandards_hcanthro

weight <- round(at_z(weights, "age", age, sex, rnorm(n) * spread), sample(1:3, n, replace = TRUE))
lenhei <- round(at_z(lengths, "age", age, sex, rnorm(n) * spread), sample(1:2, n, replace = TRUE))
headc <- round(at_z(heads, "age", age, sex, rnorm(n) * spread), 1)
measure <- sample(c("l", "h", NA), n, replace = TRUE, prob = c(0.45, 0.45, 0.1))
oedema <- ifelse(runif(n) < 0.05, "y", "n")
# Some visits lack a measurement, as real ones do.
weight[runif(n) < 0.05] <- NA
lenhei[runif(n) < 0.05] <- NA
headc[runif(n) < 0.2] <- NA

z <- anthro_zscores(sex = sex, age = age, is_age_in_month = FALSE, weight = weight, lenhei = lenhei,
                    measure = measure, headc = headc, oedema = oedema)
out <- data.frame(sex = ifelse(sex == 1, "boy", "girl"), age_days = age, weight = weight, lenhei = lenhei,
                  measure = ifelse(is.na(measure), "", ifelse(measure == "l", "lying", "standing")),
                  headc = headc, oedema = oedema == "y",
                  clenhei = z$clenhei, cbmi = z$cbmi, zwei = z$zwei, zlen = z$zlen, zwfl = z$zwfl,
                  zbmi = z$zbmi, zhc = z$zhc, fwei = z$fwei, flen = z$flen, fwfl = z$fwfl, fbmi = z$fbmi, fhc = z$fhc)
cat("# Scored by WHO Anthro (R package anthro ", as.character(packageVersion("anthro")),
    ") with scripts/who-anthro-reference.R; empty = not scored.\n", sep = "")
write.csv(out, stdout(), row.names = FALSE, na = "", quote = FALSE)
