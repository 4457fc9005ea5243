-- TCAM: 4 stored words of 6 bits with per-word care masks; words and masks are parameter inputs
-- (--PARAM comments on the port lines). hit(i) = word i matches key on every cared-for bit;
-- idx = lowest matching word, valid = any match.
library ieee;
use ieee.std_logic_1164.all;

entity tcam is
  port (
    key          : in  std_logic_vector(5 downto 0);
    words, masks : in  std_logic_vector(23 downto 0);  --PARAM: word i = bits 6i+5..6i
    hit          : out std_logic_vector(3 downto 0);
    idx          : out std_logic_vector(1 downto 0);
    valid        : out std_logic
  );
end entity;

architecture rtl of tcam is
  signal h : std_logic_vector(3 downto 0);
begin
  g : for i in 0 to 3 generate
    h(i) <= '1' when ((key xor words(6*i+5 downto 6*i)) and masks(6*i+5 downto 6*i)) = "000000" else '0';
  end generate;
  hit <= h;
  valid <= '1' when h /= "0000" else '0';
  idx <= "00" when h(0) = '1' else
         "01" when h(1) = '1' else
         "10" when h(2) = '1' else
         "11";
end architecture;
