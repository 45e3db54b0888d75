"""The benchmark: experiments, curricula, Ω, the g-index, studies, analysis, statistics."""
