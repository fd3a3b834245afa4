# h5py's documentation's parallel example, through Debian's MPI build of
# h5py: each rank writes its element of one dataset in one shared file
# through MPI-IO (tests/e2e/capture-mpi-io.sh, replay-mpi-level.sh).
from mpi4py import MPI
import h5py._debian_h5py_mpi as h5py

rank = MPI.COMM_WORLD.rank
f = h5py.File('parallel_test.hdf5', 'w', driver='mpio', comm=MPI.COMM_WORLD)
dset = f.create_dataset('test', (4,), dtype='i')
dset[rank] = rank
f.close()
