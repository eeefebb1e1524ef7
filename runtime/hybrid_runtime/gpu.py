def thread_idx_x(): return 0
