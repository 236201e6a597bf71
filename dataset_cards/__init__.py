"""Dataset card templates; ``argbench build`` fills in computed statistics."""
