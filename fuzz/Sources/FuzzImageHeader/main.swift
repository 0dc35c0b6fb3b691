import FuzzDriver

runLibFuzzer()
